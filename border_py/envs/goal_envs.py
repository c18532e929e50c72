"""Small goal-conditioned envs with dict observations, registered as ``border_py/...`` Gymnasium ids
(`make_gym` imports this module for such an id): the tests, examples and zoo entries of dict observations
run on them in seconds, without MuJoCo.

- ``border_py/PointGoal-v0``: a point on the plane ``[-1, 1]^2`` moved by a box action (steps of at most
  0.1 per axis) towards a goal drawn at each reset; 50 steps an episode. ``reward_type="dense"`` (the
  default): minus the distance; ``"sparse"``: 0 within 0.05 of the goal, else -1 (the convention of
  Gymnasium-Robotics' Fetch tasks and of goal relabelling).

Each observation is ``{"observation", "achieved_goal", "desired_goal"}``, and ``compute_reward`` takes
batches of goals, as Gymnasium-Robotics' ``GoalEnv`` does; ``info["is_success"]`` says whether the goal was
reached.

Examples:
    >>> import gymnasium as gym
    >>> import border_py.envs.goal_envs  # noqa: F401  (registers the ids)
    >>> env = gym.make("border_py/PointGoal-v0")
    >>> obs, _ = env.reset(seed=0)
    >>> sorted(obs)
    ['achieved_goal', 'desired_goal', 'observation']
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

SUCCESS_DISTANCE = 0.05
"""A goal within this distance counts as reached (the sparse reward's 0, ``is_success``)."""
STEP = 0.1
"""The largest move per axis of one action."""


class PointGoalEnv(gym.Env[dict[str, Any], F32]):
    """``border_py/PointGoal-v0`` (the module's docstring says what it is).

    Args:
        reward_type: ``"dense"`` (minus the distance to the goal) or ``"sparse"`` (0 at the goal, else -1).

    Raises:
        ValueError: another ``reward_type``.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (Gymnasium's own annotation)

    def __init__(self, reward_type: str = "dense") -> None:
        if reward_type not in ("dense", "sparse"):
            raise ValueError(f"reward_type must be 'dense' or 'sparse', got {reward_type!r}")
        self.reward_type = reward_type
        plane = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.observation_space = gym.spaces.Dict(
            {"observation": plane, "achieved_goal": plane, "desired_goal": plane}
        )
        self.action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self._pos = np.zeros(2, np.float32)
        self._goal = np.zeros(2, np.float32)

    def _obs(self) -> dict[str, Any]:
        pos, goal = self._pos, self._goal
        return {"observation": pos.copy(), "achieved_goal": pos.copy(), "desired_goal": goal.copy()}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A start and a goal drawn uniformly on the plane."""
        super().reset(seed=seed)
        self._pos = self.np_random.uniform(-1.0, 1.0, 2).astype(np.float32)
        self._goal = self.np_random.uniform(-1.0, 1.0, 2).astype(np.float32)
        return self._obs(), {}

    def step(self, action: F32) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Moves by ``STEP * clip(action, -1, 1)``, kept on the plane; never terminates (the time limit
        truncates)."""
        move = STEP * np.clip(np.asarray(action, np.float32), -1.0, 1.0)
        self._pos = np.clip(self._pos + move, -1.0, 1.0).astype(np.float32)
        info = {"is_success": bool(np.linalg.norm(self._pos - self._goal) < SUCCESS_DISTANCE)}
        reward = float(self.compute_reward(self._pos, self._goal, info))
        return self._obs(), reward, False, False, info

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any) -> npt.NDArray[np.float64]:
        """The reward of reaching ``achieved_goal`` when ``desired_goal`` was asked (batches of goals
        ``(..., 2)`` give rewards ``(...)``), as `step` gives it."""
        distance = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
        reward = -distance if self.reward_type == "dense" else -(distance >= SUCCESS_DISTANCE).astype(float)
        return np.asarray(reward, dtype=np.float64)


def _register() -> None:
    if "border_py/PointGoal-v0" not in gym.registry:
        gym.register(
            "border_py/PointGoal-v0",
            entry_point=lambda **kwargs: PointGoalEnv(**kwargs),
            max_episode_steps=50,
        )


_register()
