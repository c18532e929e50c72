"""What a saved model gives besides a score: a video of its episodes, and its policy exported.

Both need optional extras (``video``: imageio; ``export``: onnx, onnxruntime, onnxscript) and import them
only when asked.
"""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs

from border_py.run.experiment import AnyExperiment, build_eval_env, eval_seed
from border_py.run.saved import load_agent, saved_model_path


def video_env_config(experiment: AnyExperiment) -> Any:
    """The evaluation env's config, rendering frames (an Atari game's: as it is, the agent's frames are
    recorded).

    Raises:
        ValueError: the evaluation env is neither a Gymnasium env (``GymEnvConfig``) nor an Atari game.
    """
    from border_py.envs import AtariEnvConfig, GymEnvConfig

    env = experiment.eval_env()
    if isinstance(env, AtariEnvConfig):
        return env
    if not isinstance(env, GymEnvConfig):
        raise ValueError(
            "video records a Gymnasium env (GymEnvConfig) or an Atari game (AtariEnvConfig); this "
            f"experiment evaluates on {env!r}"
        )
    return attrs.evolve(env, kwargs={**env.kwargs, "render_mode": "rgb_array"})


def record_video(
    experiment: AnyExperiment, model_dir: Path, out: Path, checkpoint: str = "best", episodes: int = 1
) -> Path:
    """Records ``episodes`` greedy episodes of the saved model ``checkpoint`` to ``out`` (``.mp4`` or
    ``.gif``); prints what it wrote.

    Raises:
        ValueError: a bad ``out`` suffix, ``episodes`` < 1, or an env that cannot render.
        FileNotFoundError: the saved model is missing or incomplete.
        ImportError: the ``video`` extra is not installed.
    """
    from border_py.envs import AtariEnv
    from border_py.video import (
        check_video_path,
        record_atari_episodes,
        record_episodes,
        save_video,
        video_fps,
    )

    if episodes < 1:
        raise ValueError(f"--episodes must be >= 1, got {episodes}")
    check_video_path(out)
    env_config = video_env_config(experiment)
    saved = saved_model_path(model_dir, checkpoint)
    # MuJoCo renders through EGL without a display (no X server here, nor in CI).
    if "DISPLAY" not in os.environ:
        os.environ.setdefault("MUJOCO_GL", "egl")
    with closing(env_config.build(eval_seed(experiment))) as env:
        agent = load_agent(experiment, saved, env)
        record = record_atari_episodes if isinstance(env, AtariEnv) else record_episodes
        frames, score = record(env, agent, episodes)
        save_video(frames, out, video_fps(env))
    print(f"wrote {out}: {episodes} episode(s), {len(frames)} frames, mean return {score:.1f}")
    return out


def export_policy(
    experiment: AnyExperiment, model_dir: Path, out: Path, checkpoint: str = "best"
) -> list[Path]:
    """Writes the saved model's greedy policy to the directory ``out``: numpy arrays and JSON
    (`NumpyPolicy`), and ONNX when the ``export`` extra is installed.

    Raises:
        TypeError, ValueError: the agent cannot be exported (the message says why).
        FileNotFoundError: the saved model is missing or incomplete.
    """
    from border_py.export import export_numpy

    saved = saved_model_path(model_dir, checkpoint)
    with closing(build_eval_env(experiment)) as env:
        agent = load_agent(experiment, saved, env)
    written = [export_numpy(agent, out)]
    print(f"wrote {written[0]}: numpy policy (border_py.export.NumpyPolicy.load)")
    try:
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError:
        print("ONNX skipped: the export extra (onnx, onnxscript, onnxruntime) is not installed")
        return written
    from border_py.export import export_onnx

    written.append(export_onnx(agent, out))
    print(f"wrote {written[-1]}: ONNX policy (border_py.export.OnnxPolicy.load)")
    return written
