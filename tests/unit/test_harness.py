"""The example harness: flags, config resolution, and every check made before anything is written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import attrs
import pytest
import torch

from border_py import TrainerConfig, configure_torch, load_yaml, save_yaml
from border_py.checkpoint import TRAINER_STATE_FILE, latest_checkpoint, load_meta, save_checkpoint
from examples import dqn_cartpole
from examples.harness import run_example
from examples.make_datasets import _final_checkpoint


def test_eval_alone_without_a_model_dir_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    config = dqn_cartpole.Config()
    no_dir = attrs.evolve(config, trainer=TrainerConfig(max_opts=1, opt_interval=1))

    with pytest.raises(SystemExit):
        run_example(["--eval"], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "--eval needs --model-dir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_example([], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "give --train, --resume, --eval or a combination" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_example(["--resume"], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "--resume needs --model-dir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_example(
            ["--resume", "--overwrite", "--model-dir", "x"],
            None,
            no_dir,
            dqn_cartpole.train,
            dqn_cartpole.evaluate,
        )
    assert "give one" in capsys.readouterr().err


def test_configure_torch_sets_the_threads_and_flushes_denormals() -> None:
    """tests/conftest.py restores both settings afterwards."""
    torch.set_flush_denormal(False)
    denormal = torch.tensor([1e-39], dtype=torch.float32)  # below float32's smallest normal, 1.2e-38
    assert float(denormal * 1.0) > 0.0
    configure_torch(1)
    assert torch.get_num_threads() == 1
    assert float(denormal * 1.0) == 0.0
    with pytest.raises(ValueError, match="threads must be >= 1"):
        configure_torch(0)


def _tiny(tmp_path: Path, name: str = "tiny.yaml", **agent: object) -> Path:
    """The DQN example's config with a budget of a second: 40 opt steps, saves and evaluations every 20."""
    config = dqn_cartpole.Config()
    config = attrs.evolve(
        config,
        trainer=attrs.evolve(
            config.trainer,
            max_opts=40,
            warmup_period=100,
            eval_interval=20,
            save_interval=20,
            record_interval=10,
        ),
        replay_buffer=attrs.evolve(config.replay_buffer, capacity=1_000),
        agent=attrs.evolve(config.agent, batch_size=32, hidden=(16,), **agent),  # type: ignore[arg-type]
        evaluator=attrs.evolve(config.evaluator, n_episodes=1),
    )
    save_yaml(config, tmp_path / name)
    return tmp_path / name


def _main(*args: str) -> int:
    return dqn_cartpole.main([*args, "--no-progress"])


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ("", r"tiny\.yaml: the file is empty"),
        ("agent:\n  lr: .inf\n", r"expected a finite number, got inf @ .*tiny\.yaml\.agent\.lr"),
        ("agent:\n  hidden: []\n", r"'hidden' must list at least one hidden layer"),
        ("env:\n  name: NoSuchEnv-v0\n", r"tiny\.yaml: (eval_)?env: env name 'NoSuchEnv-v0'"),
        (
            "env:\n  name: CartPole-v1\n  kwargs: {gravity: 3}\n",
            r"tiny\.yaml: (eval_)?env: env kwargs \{'gravity': 3\} are not accepted",
        ),
        ("agent:\n  device: cuda:7\n", r"tiny\.yaml: agent: device 'cuda:7'"),
        ("agent:\n  device: gpu\n", r"'device' is not a torch device: 'gpu'"),
        (
            "agent:\n  batch_size: 64\nreplay_buffer:\n  capacity: 50\n",
            r"tiny\.yaml: trainer: agent\.batch_size \(64\) is larger than replay_buffer\.capacity \(50\)",
        ),
    ],
)
def test_a_bad_config_is_refused_naming_file_and_field_before_anything_is_written(
    change: str, match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tiny.yaml").write_text(change)
    assert (
        _main("--train", "--config", str(tmp_path / "tiny.yaml"), "--model-dir", str(tmp_path / "run")) == 2
    )
    err = capsys.readouterr().err
    assert re.search(match, err), err
    written = sorted(p.name for p in (tmp_path / "run").iterdir()) if (tmp_path / "run").exists() else []
    assert written in ([], [".lock"])


def test_a_refused_resume_writes_nothing_and_a_new_run_never_replaces_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run)) == 0
    saved = (run / "config.yaml").read_bytes()
    best = load_meta(run / "best")

    other = tmp_path / "other.yaml"
    other.write_text((tmp_path / "tiny.yaml").read_text().replace("CartPole-v1", "CartPole-v0"))
    assert _main("--resume", "--config", str(other), "--model-dir", str(run)) == 2
    assert "env.name is 'CartPole-v1' vs 'CartPole-v0'" in capsys.readouterr().err
    assert (run / "config.yaml").read_bytes() == saved

    assert _main("--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run), "--seed", "1") == 2
    assert "holds another run (best/, 20/, 40/)" in capsys.readouterr().err
    assert (run / "config.yaml").read_bytes() == saved
    assert load_meta(run / "best") == best

    # A plain --resume still works: the config and checkpoints are the first run's.
    assert _main("--resume", "--model-dir", str(run), "--max-opts", "60") == 0
    assert load_meta(run / "60")["opt_steps"] == 60
    # Starting over is explicit.
    assert (
        _main(
            "--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run), "--seed", "1", "--overwrite"
        )
        == 0
    )
    assert load_yaml(dqn_cartpole.Config, run / "config.yaml").trainer.seed == 1
    assert sorted(p.name for p in run.iterdir() if p.is_dir()) == ["20", "40", "best", "tensorboard"]


def test_resume_says_which_newer_checkpoint_it_skips_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run)) == 0
    (run / "40" / "meta.yaml").unlink()
    capsys.readouterr()
    assert _main("--resume", "--model-dir", str(run)) == 0
    out = capsys.readouterr().out
    assert f"skipping {run / '40'}: {run / '40' / 'meta.yaml'} not found" in out
    assert f"resuming from {run / '20'}" in out


@pytest.mark.parametrize("damage", ["missing", "truncated", "lost-file"])
def test_eval_refuses_a_best_that_is_not_whole(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run)) == 0
    meta = run / "best" / "meta.yaml"
    if damage == "missing":
        meta.unlink()
    elif damage == "truncated":
        meta.write_text(meta.read_text()[:40])
    else:
        (run / "best" / "qnet_tgt.pt").unlink()
    capsys.readouterr()
    assert _main("--eval", "--model-dir", str(run)) == 2
    err = capsys.readouterr().err
    assert f"error: cannot evaluate {run / 'best'}" in err
    assert {
        "missing": "meta.yaml not found",
        "truncated": "is incomplete",
        "lost-file": "lacks ['qnet_tgt.pt']",
    }[damage] in err


def test_max_env_steps_alone_replaces_max_opts_and_stop_score_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = _tiny(tmp_path)
    assert (
        _main("--train", "--config", str(tiny), "--model-dir", str(tmp_path / "a"), "--max-env-steps", "150")
        == 0
    )
    saved = load_yaml(dqn_cartpole.Config, tmp_path / "a" / "config.yaml").trainer
    assert (saved.max_opts, saved.max_env_steps) == (None, 150)
    # 100 warm-up env steps, then one opt step every 2: 25 opt steps in 150 env steps.
    assert "trained 25 opt steps, 150 env steps" in capsys.readouterr().out
    assert (
        _main("--train", "--config", str(tiny), "--model-dir", str(tmp_path / "b"), "--stop-score", "1") == 0
    )
    assert "trained 20 opt steps" in capsys.readouterr().out  # any first evaluation scores at least 1
    assert load_meta(tmp_path / "b" / "20")["opt_steps"] == 20


def test_the_dataset_builder_reuses_a_behaviour_run_only_when_it_ended(tmp_path: Path) -> None:
    """``make_datasets`` trains a behaviour policy unless a finished run is there: one at ``max_opts``, or
    one whose newest checkpoint was evaluated at ``stop_score`` or above (where that stop saved it)."""
    by_steps = TrainerConfig(max_opts=2_000)
    by_score = TrainerConfig(max_opts=300_000, stop_score=1_000.0, eval_interval=500)

    def save(opt_steps: int, score: float | None) -> Path:
        def state(folder: Path) -> list[Path]:  # what makes a numbered directory a run's checkpoint
            (folder / TRAINER_STATE_FILE).write_text("{}")
            return [folder / TRAINER_STATE_FILE]

        save_checkpoint(
            tmp_path / str(opt_steps),
            {"opt_steps": opt_steps, "env_steps": opt_steps, "score": score},
            [state],
        )
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


def test_eval_checkpoint_scores_a_numbered_checkpoint_over_the_episodes_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--checkpoint 20 --eval-episodes 3`` scores what a copy of checkpoint 20 scores as another run's
    ``best/`` with a config of 3 evaluation episodes (the config's own is 1)."""
    run = tmp_path / "run"
    assert _main("--train", "--config", str(_tiny(tmp_path)), "--model-dir", str(run)) == 0
    capsys.readouterr()

    def score(*args: str) -> float:
        assert _main("--eval", *args) == 0
        match = re.search(r"eval of (.+): mean return (-?[\d.]+)", capsys.readouterr().out)
        assert match is not None
        return float(match[2])

    asked = score("--model-dir", str(run), "--checkpoint", "20", "--eval-episodes", "3")
    copy = tmp_path / "copy"
    config = load_yaml(dqn_cartpole.Config, run / "config.yaml")
    save_yaml(
        attrs.evolve(config, evaluator=attrs.evolve(config.evaluator, n_episodes=3)), tmp_path / "3.yaml"
    )
    shutil.copytree(run / "20", copy / "best")
    assert asked == score("--config", str(tmp_path / "3.yaml"), "--model-dir", str(copy))
    assert asked != score("--model-dir", str(run), "--checkpoint", "20")  # 1 episode scores otherwise


def test_eval_checkpoint_refuses_names_outside_the_model_dir_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, outside = tmp_path / "run", tmp_path / "outside"
    config = str(_tiny(tmp_path))
    for name in ("../outside", str(outside), ""):
        assert (
            _main("--train", "--eval", "--config", config, "--model-dir", str(run), "--checkpoint", name) == 2
        )
        assert f"--checkpoint {name!r}: name a saved model below {run}" in capsys.readouterr().err
        assert not run.exists()  # refused before training wrote anything
    assert _main("--train", "--config", config, "--model-dir", str(run)) == 0
    shutil.copytree(run / "20", outside / "20")
    (run / "away").symlink_to(outside)
    capsys.readouterr()
    assert _main("--eval", "--model-dir", str(run), "--checkpoint", "away/20") == 2
    assert f"{run / 'away' / '20'} leads out of {run} through a link" in capsys.readouterr().err
    assert _main("--eval", "--model-dir", str(run), "--checkpoint", "999") == 2
    assert f"cannot evaluate {run / '999'}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--checkpoint", "20"], "go with --eval"),
        (["--eval-episodes", "3"], "go with --eval"),
        (["--eval", "--eval-episodes", "0"], "--eval-episodes must be >= 1, got 0"),
    ],
)
def test_eval_flags_are_usage_errors_out_of_place(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _main("--train", "--model-dir", str(tmp_path / "run"), *args)
    assert message in capsys.readouterr().err
