"""The ``border-py`` command as a user types it: train from the zoo, evaluate, resume with overrides,
refusals as one line with exit status 2, a whole experiment from YAML, a user's own env by import path."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from border_py.agents import DqnConfig
from border_py.checkpoint import load_meta
from border_py.model_dir import latest_checkpoint
from border_py.run import zoo
from border_py.run.cli import main
from border_py.run.codec import load_experiment
from tests.run.test_reliability import one_error_line

TINY = ["trainer.max_opts=60", "trainer.warmup_period=100", "trainer.eval_interval=30",
        "trainer.save_interval=30", "evaluator.n_episodes=2"]  # fmt: skip


def test_train_from_the_zoo_into_the_default_model_dir_then_eval_and_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "dqn", "--env", "CartPole-v1", "--seed", "3", "--no-progress", "--set", *TINY]) == 0
    run = Path("runs/dqn/CartPole-v1/seed3")
    experiment = load_experiment(run / "config.yaml")
    assert experiment.trainer.seed == 3
    assert experiment.trainer.max_opts == 60
    assert isinstance(experiment.agent, DqnConfig)
    assert experiment.agent.lr == 0.0023  # the zoo's tuned value
    out = capsys.readouterr().out
    assert "trained 60 opt steps" in out
    assert main(["eval", "--model-dir", str(run), "--episodes", "3"]) == 0
    assert "over 3 episodes" in capsys.readouterr().out
    assert main(["resume", "--model-dir", str(run), "--set", "trainer.max_opts=90", "--no-progress"]) == 0
    assert load_meta(latest_checkpoint(run) or run)["opt_steps"] == 90
    assert load_experiment(run / "config.yaml").trainer.max_opts == 90  # the resumed run's config


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["train", "dqn", "--env", "CartPole-v1", "--set", "trainer.max_optz=5"],
            "unknown key 'trainer.max_optz'",
        ),
        (
            ["train", "dqn", "--env", "CartPole-v1", "--set", "agent.lr=-1"],
            "'lr' must be > 0.0: -1.0 @ zoo dqn.yaml CartPole-v1 with --set: agent",
        ),
        (["train", "dqn", "--env", "CartPole-v1", "--set", "agent.lr"], "expected key=value"),
        (
            ["train", "--set", "agent.lr=1e-3", "dqn", "--env", "CartPole-v1"],
            "--set took 'dqn' (it takes every word up to the next flag: give ALGO before it)",
        ),
        (["train", "nosuch", "--env", "CartPole-v1"], "no algorithm 'nosuch' in the zoo"),
        (["train", "dqn", "--env", "Pendulum-v1"], "DQN needs discrete actions"),
        (["train", "dqn", "--env", "NoSuchEnv-v0"], "NoSuchEnv-v0"),
        (["train", "dqn", "--env", "CartPole-v1", "--variant", "nope"], "no variant 'nope'"),
        (["train", "dqn"], "train needs ALGO --env ENV"),
        # 10**8 units built gigabytes, then failed in the first update, after config.yaml was written.
        (
            ["train", "dqn", "--env", "CartPole-v1", "--set", "agent.hidden=[1000000000]"],
            "GiB for one update",
        ),
        # Allocation tracebacks at the first push and at the first evaluation, after config.yaml was written.
        (
            ["train", "dqn", "--env", "CartPole-v1", "--set", "replay_buffer.capacity=10000000000000000"],
            "replay_buffer: a capacity of 10,000,000,000,000,000 transitions needs about 521,540,642 GiB",
        ),
        (
            ["train", "dqn", "--env", "CartPole-v1", "--set", "evaluator.n_episodes=1000000000000000000"],
            "evaluator: n_episodes 1,000,000,000,000,000,000 needs about 14,901,161,194 GiB",
        ),
        # Called with nothing, a builtin raised TypeError as a traceback.
        (
            ["train", "dqn", "--env", "builtins:exec"],
            "builtins has no function 'exec' returning an env config",
        ),
        (["train", "dqn", "--env", "os:system"], "os has no function 'system' returning an env config"),
        (["train", "dqn", "--env", "json:dumps"], "dumps must take no arguments (it returns an env config)"),
        (["train", "dqn", "--env", "platform:system"], "system() returned a str, not an env config"),
        # Ran until the first lost life, then the frame step processor refused a stack it cannot rebuild.
        (
            [
                "train",
                "dqn",
                "--env",
                "ALE/Pong-v5",
                "--set",
                "env.env={game: breakout, episodic_life: true}",
            ],
            "env.env.episodic_life: true ends an episode at each lost life",
        ),
        (["eval", "--model-dir", "nowhere"], "config.yaml not found"),
        (["resume", "--model-dir", "nowhere"], "holds no run started by border-py; check --model-dir"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_anything_is_written(
    argv: list[str],
    says: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--no-progress"] if argv[0] in ("train", "resume") else argv) == 2
    assert says in one_error_line(capsys)
    assert not Path("runs").exists()  # not even the folders of the default model_dir


def test_a_second_run_into_a_model_dir_is_refused_and_overwrite_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "train",
        "dqn",
        "--env",
        "CartPole-v1",
        "--model-dir",
        str(tmp_path / "r"),
        "--no-progress",
        "--set",
        *TINY,
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 2
    assert "holds another run" in one_error_line(capsys)
    bad = [*argv[: -len(TINY) - 1], "--overwrite", "--set", *TINY, "agent.batch_size=200000"]
    assert main(bad) == 2  # refused by a check: the old run is still whole
    assert "larger than replay_buffer.capacity" in one_error_line(capsys)
    assert load_meta(tmp_path / "r" / "best")["opt_steps"] > 0
    assert main([*argv, "--overwrite"]) == 0


def test_a_whole_experiment_from_yaml_and_a_users_env_by_import_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "exp.yaml"
    config.write_text(
        "env: {name: CartPole-v1}\nstep_processor: {}\nreplay_buffer: {capacity: 500}\n"
        "agent: {type: dqn, batch_size: 16}\ntrainer: {max_opts: 10, warmup_period: 32}\n"
    )
    assert main(["train", "--config", str(config), "--model-dir", str(tmp_path / "a"), "--no-progress"]) == 0
    user = [
        "--env",
        "examples.corridor_native:make_config",
        "--model-dir",
        str(tmp_path / "b"),
        "--no-progress",
    ]
    assert (
        main(
            [
                "train",
                "dqn",
                *user,
                "--set",
                "trainer.max_opts=10",
                "trainer.warmup_period=32",
                "trainer.eval_interval=10",
            ]
        )
        == 0
    )
    assert "type: examples.corridor_native:CorridorConfig" in (tmp_path / "b" / "config.yaml").read_text()
    config.write_text("env: {name: CartPole-v1}\nenv: {name: Acrobot-v1}\n")
    assert main(["train", "--config", str(config), "--model-dir", str(tmp_path / "c")]) == 2
    assert "the key 'env' is given twice" in one_error_line(capsys)


def test_zoo_algo_env_prints_the_settings_train_starts_from(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["zoo", "a2c", "Pendulum-v1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# zoo a2c.yaml Pendulum-v1\n")
    assert yaml.safe_load(out) == zoo.entry("a2c", "Pendulum-v1").data
    assert main(["zoo", "sac", "Acrobot-v1"]) == 0  # no entry: the defaults, said so
    assert "no entry for Acrobot-v1, the defaults apply" in capsys.readouterr().out.splitlines()[0]
    assert main(["zoo", "dqn", "CartPole-v1", "--variant", "nstep3"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["step_processor"]["n_steps"] == 3
    assert main(["zoo", "dqn", "CartPole-v1", "--variant", "nope"]) == 2
    assert "give one of ['async', 'nstep3']" in one_error_line(capsys)


def test_the_console_script_and_python_m_run_the_same_cli(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    listing = subprocess.run(
        [sys.executable, "-m", "border_py", "zoo", "dqn"], capture_output=True, text=True, env=env
    )
    assert listing.returncode == 0
    assert "LunarLander-v3" in listing.stdout
    assert "search space" in listing.stdout
    script = Path(sys.executable).parent / "border-py"
    command = [str(script), "train", "dqn", "--env", "CartPole-v1", "--set", "x"]
    bad = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    # Refused after its env was built: the zoo's note and Gymnasium's "out of date" warning were 4 lines.
    late = [*command[:4], "CartPole-v0", "--set", "replay_buffer.capacity=10"]
    bad = subprocess.run(late, capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == [bad.stderr.strip()]
    assert bad.stderr.startswith("error: ")
    assert "replay_buffer.capacity (10)" in bad.stderr
    # argparse's own mistakes were the whole usage, then the error: nine lines.
    bad = subprocess.run([*command[:5], "--seed", "one"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr == (
        "error: border-py train: argument --seed: invalid int value: 'one' "
        "(border-py train --help says more)\n"
    )


@pytest.mark.filterwarnings("default::DeprecationWarning")
def test_notes_and_warnings_come_one_line_each_once_the_run_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["train", "dqn", "--env", "CartPole-v0", "--no-progress", "--set", *TINY]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "note: the zoo has no dqn entry for CartPole-v0: using dqn's defaults",
        "warning: The environment CartPole-v0 is out of date. You should consider upgrading to version `v1`.",
    ]


def test_set_accepts_every_key_the_yaml_accepts_and_a_near_miss_gets_suggestions() -> None:
    """``--set init_from=...`` (the AWAC page's fine-tuning command) used to be an unknown key; an unknown
    key listed only the keys present, with no suggestion (``agent.lr`` for SAC)."""
    from border_py.config import ConfigError
    from border_py.run import codec, zoo

    awac = codec.apply_overrides(zoo.entry("awac", "Pendulum-v1").data, ["init_from=runs/a/best"])
    assert awac["init_from"] == "runs/a/best"
    sac = zoo.entry("sac", "Pendulum-v1").data
    assert codec.apply_overrides(sac, ["torch_threads=2"])["torch_threads"] == 2
    with pytest.raises(
        ConfigError,
        match=r"mean 'agent.actor_lr', 'agent.alpha_lr', 'agent.critic_lr', 'agent.lr_schedule'\?; "
        r"known here: .*'init_alpha'",
    ):
        codec.apply_overrides(sac, ["agent.lr=1e-3"])
    with pytest.raises(
        ConfigError, match=r"unknown key 'trainer.max_opt'; did you mean 'trainer.max_opts'\?"
    ):
        codec.apply_overrides(sac, ["trainer.max_opt=10"])
    typo = {**sac, "agent": {**sac["agent"], "critic_lrr": 1e-3}}  # a file's typo: the class's fields
    with pytest.raises(ConfigError, match=r"unknown keys \['critic_lrr'\]; did you mean 'critic_lr'\?"):
        codec.experiment_from_dict(typo, "x.yaml")
    finetune = zoo.entry("awac", "Pendulum-v1").data  # its dataset prefills the replay buffer
    with pytest.raises(
        ConfigError, match=r"dataset is not a section; this experiment has it at 'replay_buffer.dataset'"
    ):
        codec.apply_overrides(finetune, ["dataset.dataset_id=x"])
    with pytest.raises(ConfigError, match=r"unknown key 'init_from'; known here"):  # offline: no such field
        codec.apply_overrides(zoo.entry("awac", "pendulum-medium-v0").data, ["init_from=x"])


def test_a_run_that_stops_learning_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A batch the buffer fills only after the warm-up, with a low skip limit: the error was a traceback."""
    monkeypatch.chdir(tmp_path)
    changes = ["replay_buffer.capacity=64", "agent.batch_size=64", "trainer.warmup_period=10",
               "trainer.max_skipped_opts=5"]  # fmt: skip
    assert main(["train", "dqn", "--env", "CartPole-v1", "--no-progress", "--set", *changes]) == 2
    assert "agent.opt skipped 5 calls in a row (up to env step 20" in one_error_line(capsys)


def test_a_run_trained_on_a_gpu_evaluates_and_exports_here_with_device_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model directory from a GPU machine (``agent.device: cuda`` in its config.yaml, made so here):
    without ``--device`` the command says CUDA is not here; with ``--device cpu`` it runs."""
    monkeypatch.chdir(tmp_path)
    assert main(["train", "dqn", "--env", "CartPole-v1", "--no-progress", "--set", *TINY]) == 0
    run = Path("runs/dqn/CartPole-v1/seed0")
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("device: cpu", "device: cuda"))
    capsys.readouterr()
    assert main(["eval", "--model-dir", str(run)]) == 2
    assert "CUDA is not available on this machine" in one_error_line(capsys)
    assert main(["eval", "--model-dir", str(run), "--device", "cpu", "--episodes", "2"]) == 0
    assert "over 2 episodes" in capsys.readouterr().out
    assert main(["export", "--model-dir", str(run), "--device", "cpu", "--out", "exported"]) == 0
    assert (tmp_path / "exported" / "policy.json").is_file()
    assert main(["eval", "--model-dir", str(run), "--device", "tpu"]) == 2
    assert "'device' is not a torch device: 'tpu'" in one_error_line(capsys)


def test_every_help_is_plain_text_without_rest_markup() -> None:
    """The descriptions are reST docstrings; ``--help`` and the CLI reference that copies it show them
    without double backquotes or a bare ``::`` line (24 places before)."""
    from border_py import plot
    from border_py.run import program, zoo_datasets
    from border_py.run.cli import parser

    top = parser()
    verbs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    helps = [top.format_help(), *(p.format_help() for p in verbs.choices.values())]
    helps += [plot.parser("border-py plot").format_help(), zoo_datasets.parser().format_help()]
    helps.append(
        program.parser("python -m examples.dqn_cartpole", "An ``example``::\n\n    x", False).format_help()
    )
    for text in helps:
        assert "``" not in text
        assert not any(line.strip() == "::" for line in text.splitlines())
    assert "border-py: train, resume" in helps[0]
    for verb, sub in verbs.choices.items():  # each verb's own --help says what it does (upload said nothing)
        if sub.add_help:
            assert sub.description, verb
    assert "border-py plot RUN_DIR" in plot.parser("border-py plot").format_help()  # not python -m ...


def test_border_pys_own_warnings_are_one_line_each(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resumed vector run's ResumeWarning came with Python's file:line and the echo of the source line
    that warned (issue 51); other libraries' warnings keep Python's form."""
    import warnings

    from border_py.run import cli
    from border_py.trainer.sampler import ResumeWarning

    def warn(_: argparse.Namespace) -> int:
        warnings.warn("the sub-envs start\n new episodes", ResumeWarning, stacklevel=1)
        warnings.warn("someone else's", DeprecationWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(cli, "_dispatch", warn)

    def show(
        message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None
    ) -> None:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))  # Python's own

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show  # pytest records warnings; a terminal shows them as this does
        assert main(["zoo"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "warning: ResumeWarning: the sub-envs start new episodes"
    assert "DeprecationWarning: someone else's" in err[1]  # Python's own form: file:line: Category: ...
