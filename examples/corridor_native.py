"""An env that is not Gymnasium's, on the command line: border_py's own ``Env`` protocol, no Gymnasium.

Save this file as ``corridor_native.py`` in the folder you run ``border-py`` from, then:

    border-py train dqn --env corridor_native:make_config --set trainer.max_opts=2000 \\
        trainer.eval_interval=500
    border-py eval --model-dir runs/dqn/CorridorConfig/seed0 --trust-code

``--env module:function`` calls the function for the env's config; the algorithm's zoo defaults supply
everything else (``--set`` changes them). Beyond the ``Env`` protocol (see ``custom_env.py``), the run layer
needs two members: the config's ``evaluation()`` (the config of the env that evaluates, here the same) and
the env's ``spaces`` (what the agent is built from). The config must be an attrs class: the run writes it
into ``config.yaml`` by its import path (``type: corridor_native:CorridorConfig``), and ``eval`` and
``resume`` import it from there when told to trust it (``--trust-code``).
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from border_py import Step
from border_py.base import Spaces
from border_py.record import Record

Obs = Any


@attrs.frozen(kw_only=True)
class CorridorConfig:
    """A corridor of ``length`` cells: action 1 walks right, reward 1 at the end."""

    length: int = 5

    def build(self, seed: int) -> Corridor:
        return Corridor(self.length)

    def evaluation(self) -> CorridorConfig:
        return self


class Corridor:
    """The env: observations are one-hot positions."""

    def __init__(self, length: int) -> None:
        self.length, self.pos, self.steps = length, 0, 0

    @property
    def spaces(self) -> Spaces:
        return Spaces(obs_shape=(self.length,), n_actions=2)

    def _obs(self) -> Any:
        return np.eye(self.length, dtype=np.float32)[self.pos]

    def reset(self) -> Any:
        self.pos, self.steps = 0, 0
        return self._obs()

    def reset_with_index(self, ix: int) -> Any:
        return self.reset()

    def step(self, act: Any) -> tuple[Step[Any, Any], Record]:
        self.pos = max(0, min(self.length - 1, self.pos + (1 if int(act) == 1 else -1)))
        self.steps += 1
        done = self.pos == self.length - 1
        truncated = not done and self.steps >= 4 * self.length
        obs = self._obs()
        init_obs = self.reset() if done or truncated else None
        step = Step(act=act, obs=obs, reward=float(done), is_terminated=done, is_truncated=truncated,
                    info={}, init_obs=init_obs)  # fmt: skip
        return step, Record()

    def episode_start_state(self) -> dict[str, Any]:
        return {}

    def restore_episode_start(self, state: dict[str, Any]) -> None:
        self.reset()

    def close(self) -> None:
        pass


def make_config() -> CorridorConfig:
    """What ``--env corridor_native:make_config`` calls."""
    return CorridorConfig()
