"""Typing test of dict observations (mypy checks this file; pytest does not collect it).

border_py's agents read one flat float32 array per observation. The Gymnasium adapters lay a dict
observation's parts side by side (`border_py.base.obs_parts`), so a goal env through them pairs with any
agent. An env of your own that hands its agent the raw dict is a type error with every agent: the agent
would index a mapping as an array. What a type cannot say (which parts are images, where the action mask
lies) the agents check when they are built, from ``env.spaces``: an image without a multi-input encoder,
an action mask to an agent that ignores masks, each refused naming the part
(``tests/unit/test_multi_input.py``, ``tests/agents/test_action_masks.py``). Each ``# type: ignore[code]``
marks a line that must fail (``warn_unused_ignores`` makes an unneeded one an error).
"""

from __future__ import annotations

from typing import Any, assert_type

import numpy as np
import numpy.typing as npt

from border_py import (
    GymEnvConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    Step,
    TrainerConfig,
    Transition,
    TransitionBatch,
)
from border_py.agents import DqnConfig, MultiInputConfig, SacConfig
from border_py.base import Spaces
from border_py.envs import Act, Obs
from border_py.record import Record
from border_py.run import Experiment

RawObs = dict[str, npt.NDArray[np.float32]]
"""A dict observation as Gymnasium hands it, not laid flat."""


class RawDictEnv:
    """An env of one's own whose observations are the raw dicts."""

    def reset(self) -> RawObs:
        return {"observation": np.zeros(2, np.float32), "desired_goal": np.zeros(2, np.float32)}

    def reset_with_index(self, ix: int) -> RawObs:
        return self.reset()

    def step(self, act: npt.NDArray[Any]) -> tuple[Step[RawObs, npt.NDArray[Any]], Record]:
        obs = self.reset()
        return Step(
            act=act, obs=obs, reward=0.0, is_terminated=True, is_truncated=False, init_obs=obs
        ), Record()

    def episode_start_state(self) -> Any:
        return None

    def restore_episode_start(self, state: Any) -> None:
        pass

    def close(self) -> None:
        pass

    @property
    def spaces(self) -> Spaces:
        return Spaces(obs_shape=(4,), action_low=[-1.0], action_high=[1.0])


class RawDictEnvConfig:
    """Everything an experiment's env config has; only the observations' type differs."""

    def build(self, seed: int) -> RawDictEnv:
        return RawDictEnv()

    def evaluation(self) -> RawDictEnvConfig:
        return self


# The env and its config are complete: the same env with flat observations would pair.
assert_type(RawDictEnvConfig().evaluation().build(0).spaces, Spaces)


# --- a goal env through the Gymnasium adapter: its parts laid flat, accepted by any agent ------------
goal_env = GymEnvConfig(name="border_py/PointGoal-v0")
flat = Experiment(
    env=goal_env,
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=SacConfig(),
    trainer=TrainerConfig(max_opts=1),
)
assert_type(flat, Experiment[Obs, Act, Transition, TransitionBatch])

# --- a dict with an image: the same types; the encoder is a config value, checked at build time -------
pixels = Experiment(
    env=GymEnvConfig(name="border_py/PixelTarget-v0"),
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=SacConfig(encoder=MultiInputConfig()),
    trainer=TrainerConfig(max_opts=1),
)
assert_type(pixels, Experiment[Obs, Act, Transition, TransitionBatch])

# --- the raw dicts of an env of one's own: refused with a continuous and a discrete agent ------------
raw_sac = Experiment(  # type: ignore[misc]
    env=RawDictEnvConfig(),
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=SacConfig(),
    trainer=TrainerConfig(max_opts=1),
)
raw_dqn = Experiment(  # type: ignore[misc]
    env=RawDictEnvConfig(),
    step_processor=SimpleStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=DqnConfig(),
    trainer=TrainerConfig(max_opts=1),
)
