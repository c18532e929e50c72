"""``PixelBanditEnv``: a tiny pixel env, stacked like ale-py's, for tests of the pixel path in seconds."""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.record import Record

Frames = npt.NDArray[np.uint8]


@attrs.frozen(kw_only=True)
class PixelBanditEnvConfig:
    """Config of `PixelBanditEnv`.

    Examples:
        >>> PixelBanditEnvConfig(size=36).build(seed=0).reset().shape
        (4, 36, 36)
    """

    size: int = attrs.field(default=36, validator=attrs.validators.ge(36))
    """In pixels: the frames' height and width (36 is the smallest the Nature CNN takes)."""
    stack: int = attrs.field(default=4, validator=attrs.validators.gt(0))
    """In frames: how many frames one observation stacks."""
    episode_length: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """In env steps: every episode is truncated after this many."""

    def build(self, seed: int) -> PixelBanditEnv:
        """Makes the env, seeded with ``seed``."""
        return PixelBanditEnv(self, seed)


class PixelBanditEnv:
    """Each frame lights the left or the right half (at random); action 0 scores 1 on a left frame,
    action 1 on a right one. An episode is ``episode_length`` steps, truncated: a greedy policy that reads
    the newest frame scores ``episode_length``, a random one half of it. Observations are uint8 stacks,
    zeros before an episode's first frame, as ale-py's vector env shows Atari games.

    Args:
        config: sizes.
        seed: seeds the frames' sides.
    """

    n_actions = 2

    def __init__(self, config: PixelBanditEnvConfig, seed: int) -> None:
        self.config = config
        self.obs_dim = config.stack * config.size * config.size
        self.obs_shape = (config.stack, config.size, config.size)
        self._rng = np.random.default_rng(seed)
        self._obs: Frames = np.zeros(self.obs_shape, np.uint8)
        self._side = 0
        self._t, self._return = 0, 0.0
        self._start_state: dict[str, Any] = {}

    def _frame(self) -> Frames:
        self._side = int(self._rng.integers(0, 2))
        frame = np.zeros((self.config.size, self.config.size), np.uint8)
        half = self.config.size // 2
        frame[:, half * self._side : half * (self._side + 1)] = 255
        return frame

    def _start(self) -> Frames:
        self._start_state = {"rng": self._rng.bit_generator.state}
        self._obs = np.zeros(self.obs_shape, np.uint8)
        self._obs[-1] = self._frame()
        self._t, self._return = 0, 0.0
        return self._obs

    def reset(self) -> Frames:
        """Starts an episode."""
        return self._start()

    def reset_with_index(self, ix: int) -> Frames:
        """Starts evaluation episode ``ix`` (its frames are drawn from seed ``ix``)."""
        self._rng = np.random.default_rng(ix)
        return self._start()

    def step(self, act: npt.NDArray[Any]) -> tuple[Step[Frames, npt.NDArray[Any]], Record]:
        """Scores ``act`` against the newest frame's side, then shows the next frame."""
        reward = float(int(act) == self._side)
        self._t += 1
        self._return += reward
        obs = np.concatenate([self._obs[1:], self._frame()[None]])
        done = self._t == self.config.episode_length
        record = (
            Record({"env/episode_return": self._return, "env/episode_length": self._t}) if done else Record()
        )
        self._obs = self._start() if done else obs
        step = Step(
            act=act,
            obs=obs,
            reward=reward,
            is_terminated=False,
            is_truncated=done,
            init_obs=self._obs if done else None,
        )
        return step, record

    def episode_start_state(self) -> dict[str, Any]:
        """The frame RNG's state before the current episode's first frame."""
        return self._start_state

    def restore_episode_start(self, state: dict[str, Any]) -> None:
        """Makes the next ``reset`` draw the saved episode's frames again."""
        self._rng.bit_generator.state = state["rng"]

    def close(self) -> None:
        """Nothing to release."""
