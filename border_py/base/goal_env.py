"""``GoalEnv``: what goal relabelling reads of a goal-conditioned env, and ``EnvReader``, the step
processors that read the env they serve.

A goal-conditioned env (Gymnasium-Robotics' ``GoalEnv``: the Fetch tasks, ``border_py/PointGoal-v0``)
observes a dict of ``observation``, ``achieved_goal`` and ``desired_goal`` and computes the reward of any
goal with ``compute_reward(achieved_goal, desired_goal, info)``, batched over leading dimensions. Its
border_py adapter hands agents the parts side by side in one flat vector (`ObsParts` says where each lies)
and gives that function through ``goal_reward()``. The sampler hands each step processor that is an
`EnvReader` the env once, before the first step:

    sampler = SyncSampler(env, processor)      # processor.read_env(env): reads what it needs, or refuses
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy.typing as npt

from border_py.base.obs_parts import ObsParts

GoalReward: TypeAlias = Callable[
    [npt.NDArray[Any], npt.NDArray[Any], Sequence[Mapping[str, Any]]], npt.NDArray[Any]
]
"""``compute_reward(achieved_goal, desired_goal, infos)``: goals ``(n, *goal_shape)`` and one info per row
in, ``n`` rewards out."""


@runtime_checkable
class GoalEnv(Protocol):
    """An env that may be goal-conditioned: its dict observation's layout and its own reward function.

    Either is ``None`` where the env has none (a Box observation; an env without ``compute_reward``): a
    consumer refuses such an env naming what is missing.
    """

    @property
    def obs_parts(self) -> ObsParts | None:
        """Where each part of a dict observation lies in the flat vector; ``None`` for a Box."""
        ...

    def goal_reward(self) -> GoalReward | None:
        """The env's ``compute_reward``, batched; ``None`` where the env has none."""
        ...


@runtime_checkable
class EnvReader(Protocol):
    """A step processor that needs what only the built env knows (goal relabelling: the reward function
    and the observation layout). `SyncSampler` calls `read_env` once, with the env or vector env it
    steps, before the first step."""

    def read_env(self, env: object) -> None:
        """Reads what the processor needs of ``env``.

        Raises:
            ValueError: ``env`` lacks it (one line naming what is missing).
        """
        ...
