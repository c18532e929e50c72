"""What a saved model gives besides a score: a video of its episodes, and its policy exported.

Both need optional extras (``video``: imageio; ``export``: onnx, onnxruntime, onnxscript) and import them
only when asked.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import closing, contextmanager
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
    (`NumpyPolicy`), and ONNX when the ``export`` extra is installed. The files are written beside
    ``out`` and moved into it once all are whole: a failed export (a full disk) adds nothing to ``out``.

    Raises:
        ValueError: the agent cannot be exported (the message says why: an agent of one's own that states
            no ``greedy_policy()``, say).
        FileNotFoundError: the saved model is missing or incomplete.
        OSError: writing failed (a full disk, say); the message names ``out``.
    """
    from border_py.export import export_numpy
    from border_py.export.exporters import Exportable

    saved = saved_model_path(model_dir, checkpoint)
    with closing(build_eval_env(experiment)) as env:
        agent = load_agent(experiment, saved, env)
        obs_parts = env.spaces.obs_parts  # a dict observation's layout: the exports take the dict again
    if not isinstance(agent, Exportable):  # a bad request, not a bug: refused in one line, as bad input is
        raise ValueError(
            f"{saved}: the agent {type(agent).__name__} states no greedy policy (greedy_policy()), so it "
            "cannot be exported; --eval and load_policy use it as it is"
        )
    try:
        import onnxruntime  # noqa: F401
        import onnxscript  # noqa: F401
    except ImportError:
        onnx = False
    else:
        onnx = True
    with _staged(out) as stage:
        export_numpy(agent, stage, obs_parts=obs_parts)
        if onnx:
            from border_py.export import export_onnx

            export_onnx(agent, stage, obs_parts=obs_parts)
    print(f"wrote {out}: numpy policy (border_py.export.NumpyPolicy.load)")
    if not onnx:
        print("ONNX skipped: the export extra (onnx, onnxscript, onnxruntime) is not installed")
        return [out]
    from border_py.export.onnx_policy import ONNX_FILE

    print(f"wrote {out / ONNX_FILE}: ONNX policy (border_py.export.OnnxPolicy.load)")
    return [out, out / ONNX_FILE]


@contextmanager
def _staged(out: Path) -> Iterator[Path]:
    """A hidden sibling of ``out`` to write into, whose files move into ``out`` once the block ends
    (renames within one filesystem, which a full disk does not fail); removed whatever happens.

    Raises:
        OSError: writing or moving failed; the message names ``out`` and says nothing was written.
    """
    stage = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir()
        yield stage
        if not out.exists():
            stage.rename(out)
        for file in stage.iterdir() if stage.exists() else ():
            os.replace(file, out / file.name)
    except OSError as exc:
        said = exc.strerror or str(exc)
        raise OSError(exc.errno, f"could not export to {out}: {said}; nothing was written there") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
