"""Every example program trains, evaluates, resumes and exports through its own flags, with a budget of
seconds (``--set`` shrinks it); the asynchronous one is in tests/integration/test_distributed.py, beside Ray,
and each program's ``--help`` in tests/run/test_examples.py."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

from border_py.checkpoint import load_meta
from border_py.model_dir import latest_checkpoint
from border_py.run import codec
from border_py.trainer import ResumeWarning
from tests.run.conftest import as_overrides, make_dataset, tiny_changes
from tests.run.examples_table import EXAMPLES, Example, run_example

ROOT = Path(__file__).resolve().parents[2]
RUNS = [e for e in EXAMPLES if e.variant != "async" and e.attribute != "FINETUNE"]


def _tiny_flags(example: Example, datasets: Path) -> list[str]:
    data = codec.experiment_to_dict(example.experiment())
    dataset = data.get("dataset")
    if dataset is not None:
        make_dataset(dataset["dataset_id"], data["env"]["name"], datasets)
    return ["--no-progress", "--set", *as_overrides(tiny_changes(data, datasets))]


@pytest.mark.smoke
@pytest.mark.parametrize("example", RUNS, ids=[e.module for e in RUNS])
def test_an_example_trains_evaluates_resumes_and_exports_with_its_flags(
    example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    run = tmp_path / "run"
    flags = _tiny_flags(example, tmp_path / "datasets")
    assert (
        run_example(example.module, ["--train", "--model-dir", str(run), "--seed", "3", *flags], monkeypatch)
        == 0
    )
    assert load_meta(run / "4")["opt_steps"] == 4
    assert codec.load_experiment(run / "config.yaml").trainer.seed == 3
    if example.module != "dqn_atari":  # no evaluation: a game of Pong takes minutes
        assert run_example(example.module, ["--eval", "--model-dir", str(run)], monkeypatch) == 0
        assert "mean return" in capsys.readouterr().out
    more = ["--resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=6"]
    # ale-py's vector env alone cannot rewind its sub-envs' episodes (docs/checkpoints.md).
    restarts = type(example.experiment().env).__name__ == "AtariVecEnvConfig"
    with pytest.warns(ResumeWarning, match="new episodes") if restarts else nullcontext():
        assert run_example(example.module, more, monkeypatch) == 0
    assert "resuming from" in capsys.readouterr().out
    assert latest_checkpoint(run) == run / "6"
    _exports_checkpoint_6(example, run, tmp_path / "exported", monkeypatch)


def _exports_checkpoint_6(example: Example, run: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--export`` of the resumed run's newest checkpoint (dqn_atari saves no ``best/``) writes a numpy
    policy and an ONNX file, and the numpy one acts as the saved model does."""
    from border_py.export import NumpyPolicy
    from border_py.run import load_policy

    argv = ["--export", str(out), "--model-dir", str(run), "--checkpoint", "6"]
    assert run_example(example.module, argv, monkeypatch) == 0
    assert (out / "policy.onnx").is_file()
    exported, saved = NumpyPolicy.load(out), load_policy(run, "6")
    shape = saved.spaces.obs_shape  # pixels as the env gives them (uint8); ones: a mask's flags allow all
    obs = np.ones((2, *shape), np.uint8 if len(shape) == 3 else np.float32)
    if saved.recurrent:
        ours, _ = exported.act_with_memory(obs, exported.initial_memory(2))
        theirs, _ = saved.predict_with_memory(obs, episode_start=True)
    else:
        ours, theirs = exported.act(obs), saved.predict(obs)
    np.testing.assert_allclose(ours, theirs, atol=1e-4)


@pytest.mark.smoke
def test_the_awac_example_fine_tunes_online_from_its_offline_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    offline, finetune = (e for e in EXAMPLES if e.module == "awac_pendulum")
    run = tmp_path / "awac"
    flags = _tiny_flags(offline, tmp_path / "datasets")
    assert run_example("awac_pendulum", ["--train", "--model-dir", str(run), *flags], monkeypatch) == 0
    online = [
        "--no-progress",
        "--set",
        *as_overrides(tiny_changes(codec.experiment_to_dict(finetune.experiment()), tmp_path / "datasets")),
    ]
    argv = ["--train", "--finetune", "--model-dir", str(run), *online]
    assert run_example("awac_pendulum", argv, monkeypatch) == 0
    saved = codec.load_experiment(run / "finetune" / "config.yaml")
    assert getattr(saved, "init_from", None) == str(run / "best")
    assert run_example("awac_pendulum", ["--eval", "--finetune", "--model-dir", str(run)], monkeypatch) == 0
    assert f"eval of {run / 'finetune' / 'best'}" in capsys.readouterr().out


@pytest.mark.smoke
def test_the_ppo_atari_example_exports_its_pixel_policy_and_records_a_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 55's newcomer path for pixels: after --train (and the eval and resume of the test above),
    --export writes numpy and ONNX files that act on frame stacks, and --video records a game."""
    from border_py.export import NumpyPolicy

    example = next(e for e in EXAMPLES if e.module == "ppo_atari")
    run = tmp_path / "run"
    assert (
        run_example(
            example.module, ["--train", "--model-dir", str(run), *_tiny_flags(example, tmp_path)], monkeypatch
        )
        == 0
    )
    assert (
        run_example(example.module, ["--export", str(tmp_path / "out"), "--model-dir", str(run)], monkeypatch)
        == 0
    )
    policy = NumpyPolicy.load(tmp_path / "out")
    frames = np.zeros((2, 4, 84, 84), np.uint8)
    assert policy.act(frames).shape == (2,)
    assert (tmp_path / "out" / "policy.onnx").is_file()
    video = tmp_path / "pong.gif"
    assert run_example(example.module, ["--video", str(video), "--model-dir", str(run)], monkeypatch) == 0
    import imageio.v3 as iio

    game = iio.imread(video)  # the frames the agent saw: 84x84, grayscale as RGB, a whole game of Pong
    assert game.shape[1:] == (84, 84, 3)
    assert len(game) > 500


@pytest.mark.smoke
def test_exporting_an_agent_without_a_greedy_policy_is_refused_in_one_line(tmp_path: Path) -> None:
    # The tutorial's LinearQ states no greedy_policy(): --export is a bad request, not a traceback. A
    # process of its own: the agent's config lives in the program's __main__.
    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "examples.custom_agent", "--model-dir", "run", *flags]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)

    budget = ("--set", "trainer.max_opts=4", "--set", "trainer.eval_interval=4")
    trained = run("--train", "--no-progress", *budget)
    assert trained.returncode == 0, trained.stderr
    exported = run("--export", "out")
    assert exported.returncode == 2
    assert exported.stderr.startswith("error: ")
    assert exported.stderr.count("\n") == 1
    assert "LinearQ states no greedy policy (greedy_policy())" in exported.stderr
    assert not (tmp_path / "out").exists()
