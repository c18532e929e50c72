"""Watching a policy: evaluation episodes rendered to an MP4 or a GIF.

For a Gymnasium env, frames come from a wrapper around the env inside a `GymEnv` built with
``render_mode="rgb_array"``: every frame of every episode, its last one included, and none of the frames
the adapter's automatic reset renders between two episodes; they are written with imageio
(the ``video`` extra: ``imageio``, and ``imageio-ffmpeg`` for MP4). It runs headless: classic-control envs
draw with pygame off-screen, MuJoCo ones need ``MUJOCO_GL=egl`` (or ``osmesa``) on a machine without a
display. For an Atari game (`AtariEnv`), the frames are what the agent sees: the newest 84x84 grayscale frame
of each observation (ale-py's vector env renders no full-colour screen), at 60 / ``frame_skip`` frames a
second.

Example:

    env = attrs.evolve(config.eval_env, kwargs={"render_mode": "rgb_array"}).build(seed)
    frames, score = record_episodes(env, agent, n_episodes=1)
    save_video(frames, Path("cartpole.mp4"), fps=video_fps(env))
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.policy import Policy
from border_py.base.step import Step
from border_py.envs import Act, GymEnv, Obs
from border_py.envs.atari import AtariEnv, Frames
from border_py.evaluator import DefaultEvaluator

SUFFIXES = (".mp4", ".gif")
Frame = npt.NDArray[np.uint8]


def record_episodes(env: GymEnv, policy: Policy[Obs, Act], n_episodes: int = 1) -> tuple[list[Frame], float]:
    """Runs ``n_episodes`` evaluation episodes (episode ``i`` reset with seed ``i``, as the evaluator does)
    and returns their frames and the mean return. The caller puts an agent in eval mode first.

    Raises:
        ValueError: ``env`` was not built with ``render_mode="rgb_array"``.
    """
    if env.env.render_mode != "rgb_array":
        raise ValueError(
            f"{env.name}: recording needs the env built with render_mode='rgb_array' "
            f"(GymEnvConfig kwargs), it has {env.env.render_mode!r}"
        )
    if "DISPLAY" not in os.environ:
        # Frames are drawn off-screen; without this SDL (pygame) looks for a display and prints an error.
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    inner = env.env
    tap = _Frames(inner)
    env.env = tap  # taken off again afterwards
    try:
        score, _ = DefaultEvaluator(env, n_episodes).evaluate(policy)
    finally:
        env.env = inner
    return tap.episode_frames(), score


class _Frames(gym.Wrapper[Any, Any, Any, Any]):
    """Keeps the frame after every reset and step. At an episode's end the adapter resets the env itself
    and the evaluator then resets it again for the next episode: the first of two resets in a row (and a
    reset that ends the recording) renders no frame of any episode and is dropped."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.frames: list[Frame] = []
        self._after_reset = False

    def _frame(self) -> Frame:
        return np.asarray(self.env.render(), dtype=np.uint8)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        out = self.env.reset(**kwargs)
        if self._after_reset:
            self.frames[-1] = self._frame()
        else:
            self.frames.append(self._frame())
        self._after_reset = True
        return out

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        out = self.env.step(action)
        self.frames.append(self._frame())
        self._after_reset = False
        return out

    def episode_frames(self) -> list[Frame]:
        """The frames of the episodes, without the automatic reset after the last one."""
        return self.frames[:-1] if self._after_reset else list(self.frames)


class _SeenFrames:
    """An `AtariEnv` that keeps the newest frame of every observation the evaluator is given, as RGB:
    the reset's and each step's (at an episode's end, its final observation, not the next game's)."""

    def __init__(self, env: AtariEnv) -> None:
        self.env = env
        self.frames: list[Frame] = []

    def _keep(self, obs: Frames) -> Frames:
        self.frames.append(np.repeat(obs[-1][:, :, None], 3, axis=2))
        return obs

    def reset(self) -> Frames:
        return self._keep(self.env.reset())

    def reset_with_index(self, ix: int) -> Frames:
        return self._keep(self.env.reset_with_index(ix))

    def step(self, act: Act) -> tuple[Step[Frames, Act], Any]:
        step, record = self.env.step(act)
        self._keep(step.obs)
        return step, record

    def episode_start_state(self) -> Any:
        return self.env.episode_start_state()

    def restore_episode_start(self, state: Any) -> None:
        self.env.restore_episode_start(state)

    def close(self) -> None:
        self.env.close()


def record_atari_episodes(
    env: AtariEnv, policy: Policy[Frames, Act], n_episodes: int = 1
) -> tuple[list[Frame], float]:
    """As `record_episodes`, for an Atari game: the frames the agent saw (84x84, grayscale as RGB) and
    the mean return."""
    tap = _SeenFrames(env)
    score, _ = DefaultEvaluator(tap, n_episodes).evaluate(policy)
    return tap.frames, score


def video_fps(env: GymEnv | AtariEnv, default: int = 30) -> int:
    """The env's own frame rate (``metadata["render_fps"]``; an Atari game's 60 emulator frames a second
    over its frame skip), or ``default``."""
    if isinstance(env, AtariEnv):
        return max(1, round(60 / env.config.frame_skip))
    fps: Any = env.env.metadata.get("render_fps")
    return int(fps) if isinstance(fps, int | float) and fps > 0 else default


def check_video_path(path: Path) -> None:
    """Refuses a video path before any episode is run: a suffix other than ``.mp4`` / ``.gif``, a missing
    directory, or a writer that is not installed.

    Raises:
        ValueError: the suffix is not ``.mp4`` or ``.gif``.
        FileNotFoundError: the directory does not exist.
        ImportError: imageio (or, for MP4, imageio-ffmpeg) is missing; the message says what to install.
    """
    if path.suffix.lower() not in SUFFIXES:
        raise ValueError(f"video {path}: the file must end in {' or '.join(SUFFIXES)}")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"video {path}: no directory {path.parent}")
    needed = ["imageio", "imageio_ffmpeg"] if path.suffix.lower() == ".mp4" else ["imageio"]
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"video {path} needs {', '.join(missing)}: pip install 'border_py[video]'")


def save_video(frames: Sequence[Frame], path: Path, fps: int) -> Path:
    """Writes ``frames`` (each ``(H, W, 3)`` uint8) to ``path``: MP4 (H.264 via imageio-ffmpeg) or GIF,
    by its suffix. Returns ``path``.

    Raises:
        ValueError, FileNotFoundError, ImportError: what `check_video_path` refuses; no frames, or
            frames of different shapes.
    """
    check_video_path(path)
    if not frames:
        raise ValueError(f"video {path}: no frames to write")
    shapes = {f.shape for f in frames}
    if len(shapes) != 1:
        raise ValueError(f"video {path}: frames of different shapes {sorted(shapes)}")
    import imageio.v3 as iio

    stack = np.stack(frames)
    if path.suffix.lower() == ".gif":
        iio.imwrite(path, stack, duration=1000.0 / fps, loop=0)
    else:
        # H.264 works in 16-pixel blocks: pad the frame's edge up to them (the plugin would rescale it, and
        # warn, otherwise).
        h, w = stack.shape[1:3]
        stack = np.pad(stack, ((0, 0), (0, -h % 16), (0, -w % 16), (0, 0)), mode="edge")
        iio.imwrite(path, stack, plugin="FFMPEG", fps=fps, codec="libx264", pixelformat="yuv420p")
    return path
