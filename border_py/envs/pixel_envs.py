"""A small env whose dict observation holds an image, registered as a ``border_py/...`` Gymnasium id
(`make_gym` imports this module for such an id): the tests, example and zoo entries of the multi-input
encoder (`border_py.agents.multi_input`) run on it in a minute, without a renderer.

- ``border_py/PixelTarget-v0``: one step an episode. The observation is ``{"image": (36, 36, 1) uint8,
  "offset": (1,) float32}``: the image is black but for one lit column, whose place across the image is
  a number ``x`` in ``[-1, 1]``, drawn at each reset with ``offset`` (in ``[-0.5, 0.5]``). The target is
  ``t = clip(x + offset, -1, 1)``, so an agent must read both parts: the image (where the column is) and
  the flat part. ``discrete=False`` (the default): a box action ``a`` in ``[-1, 1]``, reward ``-|a - t|``
  (a uniform random action scores about -0.7, the best action 0). ``discrete=True``: ``n_bins`` actions
  (5), the bins of ``[-1, 1]``; reward 1 for the bin holding ``t``, else 0 (random: 1/5).

Examples:
    >>> import gymnasium as gym
    >>> import border_py.envs.pixel_envs  # noqa: F401  (registers the id)
    >>> env = gym.make("border_py/PixelTarget-v0")
    >>> obs, _ = env.reset(seed=0)
    >>> obs["image"].shape, obs["image"].dtype, int((obs["image"] == 255).sum())
    ((36, 36, 1), dtype('uint8'), 36)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

SIZE = 36
"""The image's height and width: the smallest the Nature CNN's filters cover."""


class PixelTargetEnv(gym.Env[dict[str, Any], Any]):
    """``border_py/PixelTarget-v0`` (the module's docstring says what it is).

    Args:
        discrete: bins of the target to choose from, rather than a number.
        n_bins: the number of bins (``discrete``).

    Raises:
        ValueError: ``n_bins`` < 2.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (Gymnasium's own annotation)

    def __init__(self, discrete: bool = False, n_bins: int = 5) -> None:
        if n_bins < 2:
            raise ValueError(f"n_bins must be >= 2, got {n_bins}")
        self.discrete, self.n_bins = discrete, n_bins
        self.observation_space = gym.spaces.Dict(
            {
                "image": gym.spaces.Box(0, 255, (SIZE, SIZE, 1), np.uint8),
                "offset": gym.spaces.Box(-0.5, 0.5, (1,), np.float32),
            }
        )
        self.action_space: gym.Space[Any] = (
            gym.spaces.Discrete(n_bins) if discrete else gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        )
        self._column, self._offset = 0, np.zeros(1, np.float32)

    @property
    def target(self) -> float:
        """``t``, the number the action is scored against."""
        x = 2.0 * self._column / (SIZE - 1) - 1.0
        return float(np.clip(x + self._offset[0], -1.0, 1.0))

    def _obs(self) -> dict[str, npt.NDArray[Any]]:
        image = np.zeros((SIZE, SIZE, 1), np.uint8)
        image[:, self._column, 0] = 255
        return {"image": image, "offset": self._offset.copy()}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new column and offset."""
        super().reset(seed=seed)
        self._column = int(self.np_random.integers(SIZE))
        self._offset = self.np_random.uniform(-0.5, 0.5, 1).astype(np.float32)
        return self._obs(), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Scores ``action`` against the target; the episode ends."""
        t = self.target
        if self.discrete:
            wanted = min(int((t + 1.0) / 2.0 * self.n_bins), self.n_bins - 1)
            reward = float(int(action) == wanted)
        else:
            reward = -abs(float(np.clip(np.asarray(action, np.float32).reshape(-1)[0], -1.0, 1.0)) - t)
        return self._obs(), reward, True, False, {}


def _register() -> None:
    if "border_py/PixelTarget-v0" not in gym.registry:
        gym.register("border_py/PixelTarget-v0", entry_point=lambda **kwargs: PixelTargetEnv(**kwargs))


_register()
