"""Your own Gymnasium env: a corridor, in a module of your own folder that registers it.

Save this file as ``corridor.py`` in the folder you run ``border-py`` from, then:

    border-py train dqn --env corridor:Corridor-v0 --set trainer.max_opts=3000 trainer.eval_interval=500
    border-py eval --model-dir runs/dqn/Corridor-v0/seed0 --trust-code

``--env corridor:Corridor-v0`` is Gymnasium's own convention (``gymnasium.make("corridor:Corridor-v0")``):
``corridor`` is imported (from the installed packages, then the current folder), which registers the id,
then the env is made. The run writes the name into its ``config.yaml``, so ``eval`` and ``resume`` make the
same env; since that imports a module a file names, they ask for ``--trust-code``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

Obs = npt.NDArray[np.float32]


class Corridor(gym.Env[Obs, np.int64]):
    """Walk from cell 0 to the last of ``length`` cells: action 1 steps right, 0 left, -1 reward a step.

    Observations are the one-hot position. The best return is ``-(length - 1)``, walking straight right;
    episodes are cut after 20 steps (the registration's ``max_episode_steps``), so one that never
    arrives still ends (return -20).
    """

    def __init__(self, length: int = 5) -> None:
        self.length = length
        self.observation_space = gym.spaces.Box(0.0, 1.0, (length,), np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self.position = 0

    def _obs(self) -> Obs:
        obs = np.zeros(self.length, dtype=np.float32)
        obs[self.position] = 1.0
        return obs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        self.position = 0
        return self._obs(), {}

    def step(self, action: np.int64) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        self.position = min(max(self.position + (1 if int(action) == 1 else -1), 0), self.length - 1)
        arrived = self.position == self.length - 1
        return self._obs(), -1.0, arrived, False, {}


# The entry point by name, as this module is imported (``corridor``, or ``examples.corridor`` in the repo).
gym.register(id="Corridor-v0", entry_point=f"{__name__}:Corridor", max_episode_steps=20)
