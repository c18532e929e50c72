"""A run directory's life through the CLI: refusals that write nothing, resume from the newest complete
checkpoint (and what it skips), evaluation of a saved model by name, damaged saves refused."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from border_py.checkpoint import TRAINER_STATE_FILE, load_meta, save_checkpoint
from border_py.model_dir import latest_checkpoint
from border_py.run.cli import main
from border_py.run.codec import load_experiment
from border_py.run.zoo_datasets import _final_checkpoint
from border_py.trainer.config import TrainerConfig
from tests.run.tiny import tiny_config


def _main(*args: str) -> int:
    return main([*args, "--no-progress"] if args[0] in ("train", "resume") else list(args))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ("agent: {type: dqn, lr: -1}\n", r"'lr' must be > 0.0: -1.0 @ .*tiny.yaml: agent"),
        (
            "agent: {type: dqn, learning_rate: 0.1}\n",
            r"unknown keys \['learning_rate'\] @ .*tiny.yaml: agent",
        ),
        ("trainer: {max_opts: 1.5}\n", r"expected an integer, got 1.5 @ .*tiny.yaml: trainer.max_opts"),
        ("agent: {type: nosuch}\n", r"tiny.yaml: agent.type 'nosuch' is unknown"),
        (
            "replay_buffer: {type: frames}\n",
            r"emits Transition items, but replay_buffer FrameReplayBufferConfig",
        ),
    ],
)
def test_a_bad_config_is_refused_naming_file_and_field_before_anything_is_written(
    change: str, match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tiny_config(tmp_path).read_text()
    key = change.split(":")[0]
    kept = [block for block in re.split(r"\n(?=\S)", base) if not block.startswith(f"{key}:")]
    (tmp_path / "tiny.yaml").write_text("\n".join(kept) + "\n" + change)
    assert _main("train", "--config", str(tmp_path / "tiny.yaml"), "--model-dir", str(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert re.search(match, err), err
    assert not (tmp_path / "run").exists()


def test_a_refused_resume_writes_nothing_and_a_new_run_never_replaces_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    saved = (run / "config.yaml").read_bytes()
    best = load_meta(run / "best")
    assert _main("resume", "--model-dir", str(run), "--set", "env.name=Acrobot-v1") == 2
    assert "env.name is 'CartPole-v1' vs 'Acrobot-v1'" in capsys.readouterr().err
    assert (run / "config.yaml").read_bytes() == saved
    assert _main("resume", "--model-dir", str(run), "--set", "agent.hidden=[32]") == 2  # the weights differ
    assert "qnet.pt" in capsys.readouterr().err
    assert (run / "config.yaml").read_bytes() == saved
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--seed", "1") == 2
    assert "holds another run (best/, 20/, 40/, tensorboard/, config.yaml)" in capsys.readouterr().err
    assert (run / "config.yaml").read_bytes() == saved
    assert load_meta(run / "best") == best
    assert _main("resume", "--model-dir", str(run), "--set", "trainer.max_opts=60") == 0
    assert load_meta(run / "60")["opt_steps"] == 60
    argv = [
        "train",
        "--config",
        str(tiny_config(tmp_path)),
        "--model-dir",
        str(run),
        "--seed",
        "1",
        "--overwrite",
    ]
    assert _main(*argv) == 0
    assert load_experiment(run / "config.yaml").trainer.seed == 1
    assert sorted(p.name for p in run.iterdir() if p.is_dir()) == ["20", "40", "best", "tensorboard"]


def test_resume_says_which_newer_checkpoint_it_skips_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    (run / "40" / "meta.yaml").unlink()
    capsys.readouterr()
    assert _main("resume", "--model-dir", str(run)) == 0
    out = capsys.readouterr().out
    assert f"skipping {run / '40'}: {run / '40' / 'meta.yaml'} not found" in out
    assert f"resuming from {run / '20'}" in out


def test_a_run_killed_before_its_first_checkpoint_resumes_from_scratch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    for saved in ("best", "20", "40"):
        shutil.rmtree(run / saved)  # as if killed before any save: config.yaml and curves only
    capsys.readouterr()
    assert _main("resume", "--model-dir", str(run)) == 0
    assert f"no complete checkpoint in {run}: training from scratch" in capsys.readouterr().out
    assert load_meta(run / "40")["opt_steps"] == 40


@pytest.mark.parametrize("damage", ["missing", "truncated", "lost-file"])
def test_eval_refuses_a_best_that_is_not_whole(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    meta = run / "best" / "meta.yaml"
    if damage == "missing":
        meta.unlink()
    elif damage == "truncated":
        meta.write_text(meta.read_text()[:40])
    else:
        (run / "best" / "qnet_tgt.pt").unlink()
    capsys.readouterr()
    assert _main("eval", "--model-dir", str(run)) == 2
    err = capsys.readouterr().err
    assert f"error: the best model '{run / 'best'}' is not a saved model" in err
    assert {
        "missing": "meta.yaml not found",
        "truncated": "is incomplete",
        "lost-file": "lacks ['qnet_tgt.pt']",
    }[damage] in err


def test_eval_checkpoint_scores_a_numbered_checkpoint_over_the_episodes_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--checkpoint 20 --episodes 3`` scores what a copy of checkpoint 20 scores as another run's
    ``best/`` with a config of 3 evaluation episodes (the config's own is 1)."""
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    capsys.readouterr()

    def score(*args: str) -> float:
        assert _main("eval", *args) == 0
        match = re.search(r"eval of (.+): mean return (-?[\d.]+)", capsys.readouterr().out)
        assert match is not None
        return float(match[2])

    asked = score("--model-dir", str(run), "--checkpoint", "20", "--episodes", "3")
    copy = tmp_path / "copy"
    shutil.copytree(run / "20", copy / "best")
    three = tiny_config(tmp_path, "3.yaml", evaluator={"n_episodes": 3})
    assert asked == score("--config", str(three), "--model-dir", str(copy))
    assert asked != score("--model-dir", str(run), "--checkpoint", "20")  # 1 episode scores otherwise


def test_eval_sample_scores_the_actions_drawn_as_in_training_reproducibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--sample`` plays the train-mode agent (after 40 opt steps the tiny DQN's epsilon is still near 1,
    so its episodes differ from the greedy ones), the same episodes each time, and says so."""
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    capsys.readouterr()

    def score(*flags: str) -> tuple[str, float]:
        assert _main("eval", "--model-dir", str(run), "--episodes", "5", *flags) == 0
        match = re.search(r"eval(.*) of .+: mean return (-?[\d.]+)", capsys.readouterr().out)
        assert match is not None
        return match[1], float(match[2])

    (greedy_note, greedy), (note, sampled) = score(), score("--sample")
    assert (greedy_note, note) == ("", " (sampled actions)")
    assert sampled != greedy
    assert score("--sample") == (note, sampled)


def test_eval_checkpoint_refuses_names_outside_the_model_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, outside = tmp_path / "run", tmp_path / "outside"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    for name in ("../outside", str(outside), ""):
        capsys.readouterr()
        assert _main("eval", "--model-dir", str(run), "--checkpoint", name) == 2
        assert f"--checkpoint {name!r}: name a saved model below {run}" in capsys.readouterr().err
    shutil.copytree(run / "20", outside / "20")
    (run / "away").symlink_to(outside)
    assert _main("eval", "--model-dir", str(run), "--checkpoint", "away/20") == 2
    assert f"{run / 'away' / '20'} leads out of {run} through a link" in capsys.readouterr().err
    assert _main("eval", "--model-dir", str(run), "--checkpoint", "999") == 2
    assert f"--checkpoint '{run / '999'}' is not a saved model" in capsys.readouterr().err
    assert _main("eval", "--model-dir", str(run), "--episodes", "0") == 2
    assert "--episodes must be >= 1, got 0" in capsys.readouterr().err
    assert _main("eval", "--model-dir", str(run), "--episodes", str(10**18)) == 2  # was a MemoryError
    assert "--episodes 1,000,000,000,000,000,000 needs about" in capsys.readouterr().err


def test_the_dataset_builder_reuses_a_behaviour_run_only_when_it_ended(tmp_path: Path) -> None:
    """The dataset recipes train a behaviour policy unless a finished run is there: one at ``max_opts``, or
    one whose newest checkpoint was evaluated at ``stop_score`` or above (where that stop saved it)."""
    by_steps = TrainerConfig(max_opts=2_000)
    by_score = TrainerConfig(max_opts=300_000, stop_score=1_000.0, eval_interval=500)

    def save(opt_steps: int, score: float | None) -> Path:
        def state(folder: Path) -> list[Path]:  # what makes a numbered directory a run's checkpoint
            (folder / TRAINER_STATE_FILE).write_text("{}")
            return [folder / TRAINER_STATE_FILE]

        meta = {"opt_steps": opt_steps, "env_steps": opt_steps, "score": score}
        save_checkpoint(tmp_path / str(opt_steps), meta, [state])
        assert latest_checkpoint(tmp_path) == tmp_path / str(opt_steps)
        return tmp_path / str(opt_steps)

    assert _final_checkpoint(tmp_path, by_steps) is None  # nothing trained yet
    save(1_000, 900.0)
    assert _final_checkpoint(tmp_path, by_steps) is None  # an interrupted run is trained again
    assert _final_checkpoint(tmp_path, by_score) is None
    reached = save(1_500, 1_000.0)
    assert _final_checkpoint(tmp_path, by_score) == reached
    assert _final_checkpoint(tmp_path, by_steps) is None
    done = save(2_000, None)
    assert _final_checkpoint(tmp_path, by_steps) == done


def test_a_resume_reads_each_checkpoint_file_once_and_takes_the_lock_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run layer holds the directory and prepares the run (checkpoint checked, agent loaded); the
    trainer then continues from what was prepared, reading nothing again and locking nothing again."""
    import builtins
    import io
    import os
    from collections import Counter
    from contextlib import contextmanager

    from border_py.lock import model_dir_lock

    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    checkpoint = (run / "40").resolve()
    opened: Counter[str] = Counter()
    real_open, real_os_open = builtins.open, os.open

    def count(file: Any) -> None:
        if isinstance(file, (str, Path)) and Path(file).resolve().parent == checkpoint:
            opened[Path(file).name] += 1

    def counting_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        count(file)
        return real_open(file, *args, **kwargs)

    def counting_os_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        count(file)  # a saved file is opened with O_NOFOLLOW (border_py.checkpoint.open_saved)
        return real_os_open(file, *args, **kwargs)

    locks: list[Path] = []

    @contextmanager
    def counting_lock(path: Path) -> Iterator[None]:
        locks.append(path)
        with model_dir_lock(path):
            yield

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    monkeypatch.setattr("border_py.model_dir.model_dir_lock", counting_lock)
    assert _main("resume", "--model-dir", str(run), "--set", "trainer.max_opts=60") == 0
    monkeypatch.undo()
    # meta.yaml twice: once by the scan that picks the newest complete checkpoint, once when it is loaded.
    assert opened == {p.name: 2 if p.name == "meta.yaml" else 1 for p in checkpoint.iterdir()}
    assert len(locks) == 1
    assert load_meta(run / "60")["opt_steps"] == 60


@pytest.mark.parametrize("left", ["best only", "a damaged checkpoint"])
def test_a_resume_with_no_complete_checkpoint_never_removes_a_saved_model(
    left: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Killed after its first evaluation and before its first checkpoint (``best/`` only), or with its only
    checkpoint damaged: a resume refuses to start over, names what it would replace, and writes nothing."""
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    shutil.rmtree(run / "40")
    if left == "best only":
        shutil.rmtree(run / "20")
    else:
        (run / "20" / "meta.yaml").write_text("opt_steps: [")
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert _main("resume", "--model-dir", str(run)) == 2
    err = capsys.readouterr().err
    held = "best/" if left == "best only" else "best/, 20/"
    assert f"holds {held} but no complete checkpoint to resume from" in err
    assert "--overwrite" in err
    assert {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    assert _main("eval", "--model-dir", str(run)) == 0  # the saved model is still there


def test_a_ppo_run_stopped_inside_a_rollout_resumes_and_finishes_it(tmp_path: Path) -> None:
    """A vector env's run stopped after 304 env steps (a rollout of 256, then 48 steps into the next: the
    checkpoint holds them), then extended: the sub-envs' episodes are replayed, the rollout is completed
    and taken (it used to be refused: 'step 6 of sub-env 0 does not follow on from step 5')."""
    run = tmp_path / "run"
    common = ["--model-dir", str(run), "--set", "trainer.eval_interval=1", "evaluator.n_episodes=1"]
    assert _main("train", "ppo", "--env", "CartPole-v1", *common, "trainer.max_env_steps=300") == 0
    assert load_meta(run / "1")["env_steps"] == 304
    assert _main("resume", *common, "trainer.max_env_steps=600") == 0
    assert load_meta(run / "2")["env_steps"] == 600


def test_a_resume_continues_with_the_recorder_its_run_used_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interrupt's hint (``border-py resume --model-dir D``) used to drop ``--recorder mlflow``: the
    MLflow run stayed KILLED, its later steps lost. A run directory that holds an MLflow run id resumes
    with MLflow; ``--recorder`` still decides when given."""
    import border_py.run.commands as commands

    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    chosen: list[str] = []
    monkeypatch.setattr(commands, "train", lambda experiment, options: chosen.append(options.recorder))
    assert _main("resume", "--model-dir", str(run)) == 0
    (run / "mlflow_run_id").write_text("0123abcd")
    assert _main("resume", "--model-dir", str(run)) == 0
    assert _main("resume", "--model-dir", str(run), "--recorder", "tensorboard") == 0
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(tmp_path / "b")) == 0
    assert chosen == ["tensorboard", "mlflow", "tensorboard", "tensorboard"]
