"""A small env with invalid actions, registered as ``border_py/PickDistinct-v0`` (`make_gym` imports this
module for a ``border_py/...`` id): the tests, example and zoo entries of action masking run on it in
seconds.

``border_py/PickDistinct-v0``: ``n_items`` items (8) with values drawn uniformly in [0, 1) at each reset;
the agent picks ``n_picks`` (4) of them, one per step, and is paid each picked item's value. Picking an item
already taken is forbidden: the observation's ``action_mask`` flags the items still free, and a forbidden
pick is paid ``-1``, changes nothing else, and is counted (``info["forbidden"]``, the episode's count, and
`PickDistinctEnv.forbidden`, the env's, for a test to assert on). The episode ends after ``n_picks`` allowed
picks, or after ``2 * n_picks`` steps (truncated). The best return is the sum of the ``n_picks`` largest
values (2.9 on average for 4 of 8; random legal picks score 2.0).

Observations are ``{"action_mask", "taken", "worth"}`` (``worth``: the items' values; SB3's
``MultiInputPolicy`` cannot take a part named ``values``, a method of its ``nn.ModuleDict``);
``action_masks()`` returns the mask too, as sb3-contrib's ``MaskablePPO`` reads it. With ``masked=False``
the observation has no ``action_mask`` (the same information is in ``taken``): the task for an agent that
must learn the rule instead of being told.

Examples:
    >>> import gymnasium as gym
    >>> import border_py.envs.masked_envs  # noqa: F401  (registers the id)
    >>> obs, _ = gym.make("border_py/PickDistinct-v0").reset(seed=0)
    >>> sorted(obs), obs["action_mask"].tolist()
    (['action_mask', 'taken', 'worth'], [1, 1, 1, 1, 1, 1, 1, 1])
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import numpy.typing as npt


class PickDistinctEnv(gym.Env[dict[str, Any], np.int64]):
    """``border_py/PickDistinct-v0`` (the module's docstring says what it is).

    Args:
        n_items: the items to pick from (the actions).
        n_picks: the picks an episode makes.
        masked: whether the observation has the ``action_mask`` part.

    Raises:
        ValueError: ``n_picks`` not in ``[1, n_items]``.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (Gymnasium's own annotation)
    forbidden_in_process: ClassVar[int] = 0
    """Forbidden picks of every env of this class in this process (a run's sync vector env's too): what a
    test or a benchmark counts over a whole run."""

    def __init__(self, n_items: int = 8, n_picks: int = 4, masked: bool = True) -> None:
        if not 1 <= n_picks <= n_items:
            raise ValueError(f"n_picks must be in [1, n_items={n_items}], got {n_picks}")
        self.n_items, self.n_picks, self.masked = n_items, n_picks, masked
        flags = gym.spaces.MultiBinary(n_items)
        values = gym.spaces.Box(0.0, 1.0, (n_items,), np.float32)
        parts = {"action_mask": flags} if masked else {}
        self.observation_space = gym.spaces.Dict({**parts, "taken": flags, "worth": values})
        self.action_space = gym.spaces.Discrete(n_items)
        self.forbidden = 0
        """Forbidden picks over the env's life (every episode)."""
        self._values = np.zeros(n_items, np.float32)
        self._taken = np.zeros(n_items, np.int8)
        self._steps = self._episode_forbidden = 0

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The items still free (sb3-contrib's ``MaskablePPO`` calls this)."""
        free: npt.NDArray[np.bool_] = self._taken == 0
        return free

    def _obs(self) -> dict[str, Any]:
        obs = {"taken": self._taken.copy(), "worth": self._values.copy()}
        return {"action_mask": (self._taken == 0).astype(np.int8), **obs} if self.masked else obs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """New values, nothing taken."""
        super().reset(seed=seed)
        self._values = self.np_random.uniform(0.0, 1.0, self.n_items).astype(np.float32)
        self._taken[:] = 0
        self._steps = self._episode_forbidden = 0
        return self._obs(), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Picks item ``action``: its value if free, else -1 (counted)."""
        item = int(action)
        self._steps += 1
        if self._taken[item]:
            self.forbidden += 1
            self._episode_forbidden += 1
            PickDistinctEnv.forbidden_in_process += 1
            reward = -1.0
        else:
            self._taken[item] = 1
            reward = float(self._values[item])
        terminated = int(self._taken.sum()) == self.n_picks
        truncated = not terminated and self._steps >= 2 * self.n_picks
        return self._obs(), reward, terminated, truncated, {"forbidden": self._episode_forbidden}


def _register() -> None:
    if "border_py/PickDistinct-v0" not in gym.registry:
        gym.register("border_py/PickDistinct-v0", entry_point=lambda **kwargs: PickDistinctEnv(**kwargs))


_register()
