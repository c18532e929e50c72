"""Evaluation videos: frames from Gymnasium's RenderCollection, written with imageio; and the examples'
``--eval --video --export``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("imageio", reason="the video extra (imageio) is not installed")
pytest.importorskip("imageio_ffmpeg", reason="the video extra (imageio-ffmpeg) is not installed")

import imageio.v3 as iio
import imageio_ffmpeg

from border_py import GymEnvConfig
from border_py.export import NumpyPolicy
from border_py.run import load_experiment
from border_py.run.cli import main
from border_py.video import check_video_path, record_episodes, save_video, video_fps
from tests.run.tiny import tiny_config


class Push:
    """Always the same CartPole action."""

    def __init__(self, action: int) -> None:
        self.action = np.array(action)

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        return self.action


def _mp4_frames(path: Path, height: int = 400, width: int = 608) -> npt.NDArray[np.uint8]:
    """Every frame of an MP4, decoded to RGB by imageio-ffmpeg's ffmpeg binary (its own frame reader
    leaves its pipes open)."""
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    args = [ffmpeg, "-loglevel", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    raw = subprocess.run(args, capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3)


def _cartpole(render: bool = True) -> GymEnvConfig:
    return GymEnvConfig(name="CartPole-v1", kwargs={"render_mode": "rgb_array"} if render else {})


def test_every_step_of_every_episode_is_a_frame_and_the_env_is_left_as_it_was() -> None:
    env = _cartpole().build(seed=1)
    inner = env.env
    frames, score = record_episodes(env, Push(0), n_episodes=2)
    # Pushing left, CartPole episodes 0 and 1 last 11 and 10 steps (score 10.5): each episode's first frame
    # and one per step; none of the adapter's automatic reset after an episode's end.
    assert score == 10.5
    assert len(frames) == (1 + 11) + (1 + 10)
    fresh = _cartpole().build(seed=1)
    fresh.reset_with_index(1)
    assert (frames[12] == np.asarray(fresh.env.render(), dtype=np.uint8)).all()  # episode 1 starts here
    assert (frames[11] != frames[12]).any()  # and episode 0 ends on its own last frame
    assert frames[0].shape == (400, 600, 3)
    assert frames[0].dtype == np.uint8
    assert env.env is inner
    assert video_fps(env) == 50


def test_the_mp4_and_the_gif_hold_the_frames(tmp_path: Path) -> None:
    env = _cartpole().build(seed=1)
    frames, _ = record_episodes(env, Push(1), n_episodes=1)
    mp4 = save_video(frames, tmp_path / "run.mp4", fps=50)
    read = _mp4_frames(mp4)
    assert read.shape == (len(frames), 400, 608, 3)  # padded to H.264's 16-pixel blocks
    assert np.abs(read[3, :, :600].astype(int) - frames[3].astype(int)).mean() < 2.0  # lossy, but the same
    gif = save_video(frames, tmp_path / "run.gif", fps=50)
    assert iio.imread(gif).shape[1:3] == (400, 600)


def test_bad_video_requests_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"must end in \.mp4 or \.gif"):
        check_video_path(tmp_path / "run.avi")
    with pytest.raises(FileNotFoundError, match="no directory"):
        check_video_path(tmp_path / "absent" / "run.mp4")
    with pytest.raises(ValueError, match="render_mode='rgb_array'"):
        record_episodes(_cartpole(render=False).build(seed=0), Push(0))
    with pytest.raises(ValueError, match="no frames"):
        save_video([], tmp_path / "run.mp4", fps=50)


def test_the_cli_writes_a_video_and_an_exported_policy_that_acts_like_the_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model_dir = tmp_path / "run"
    assert (
        main(
            ["train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(model_dir), "--no-progress"]
        )
        == 0
    )
    video, exported = tmp_path / "cartpole.mp4", tmp_path / "exported"
    assert main(["video", "--model-dir", str(model_dir), "--out", str(video)]) == 0
    assert f"wrote {video}: 1 episode(s)" in capsys.readouterr().out
    assert len(_mp4_frames(video)) > 1
    assert main(["export", "--model-dir", str(model_dir), "--out", str(exported)]) == 0
    policy = NumpyPolicy.load(exported)
    experiment = load_experiment(model_dir / "config.yaml")
    agent = experiment.agent.build(experiment.eval_env().build(0).spaces, 0)
    agent.load_params(model_dir / "best")
    agent.eval()
    obs = np.random.default_rng(0).normal(size=(100, 4)).astype(np.float32)
    assert [int(agent.sample(o)) for o in obs] == policy.act(obs).tolist()


def test_a_bad_video_path_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_dir = tmp_path / "run"
    assert (
        main(
            ["train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(model_dir), "--no-progress"]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["video", "--model-dir", str(model_dir), "--out", str(tmp_path / "x.avi")]) == 2
    err = capsys.readouterr().err
    assert "must end in .mp4 or .gif" in err
    assert err.count("\n") == 1
