"""The CLI driven with random sequences of train / resume / overwrite / eval, good and bad configs, over
model directories in every state a user meets (a finished run, a killed one, foreign files, planted links,
a hostile ``config.yaml`` naming a module, holding aliases or nested 10,000 deep, none): after each command
no finished run lost a file unless ``--overwrite`` succeeded, nothing outside the directory changed, no code
the directory named ran, and every error was one line with exit status 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from border_py.run.cli import main
from tests.run.test_reliability import one_error_line, snapshot
from tests.run.tiny import tiny_config

STATES = ("none", "finished", "killed", "foreign", "links", "import", "alias", "deep")
PAYLOAD = """
import pathlib
pathlib.Path(__file__).with_name("payload-ran").write_text("a model directory ran code")
class Cfg:
    pass
"""
"""A module a hostile ``config.yaml`` names (``env.type: payload:Cfg``), importable from the test's root."""
GOOD, BAD = (), ("agent.batch_size=5000", "env.name=NoSuchEnv-v0", "agent.lr=-1")
COMMANDS = [
    *(("train", change, overwrite) for change in (None, *BAD) for overwrite in (False, True)),
    *(("resume", change, False) for change in (None, "trainer.max_opts=60", *BAD)),
    ("eval", None, False),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny run to copy into each example."""
    root = tmp_path_factory.mktemp("template")
    assert (
        main(["train", "--config", str(tiny_config(root)), "--model-dir", str(root / "run"), "--no-progress"])
        == 0
    )
    return root


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _prepare(state: str, template: Path, root: Path) -> Path:
    run = root / "run"
    if state == "none":
        return run
    if state == "foreign":
        run.mkdir()
        (run / "notes.txt").write_text("the user's own")
        return run
    shutil.copytree(template / "run", run, symlinks=True)
    if state == "killed":
        for saved in ("best", "20", "40"):
            shutil.rmtree(run / saved)
    if state == "links":
        (run / "99").symlink_to(root / "victim", target_is_directory=True)
        (run / f".7.tmp-{_dead_pid()}").symlink_to(root / "victim", target_is_directory=True)
        (run / f".best.old-{_dead_pid()}").symlink_to(root / "victim", target_is_directory=True)
        shutil.rmtree(run / "tensorboard")
        (run / "tensorboard").symlink_to(root / "victim", target_is_directory=True)
        weights = next(p for p in (run / "best").iterdir() if p.suffix == ".pt")
        weights.unlink()
        weights.symlink_to(root / "victim" / "keep.txt")
    if state in ("import", "alias", "deep"):
        (run / "config.yaml").write_text(_hostile(state, (run / "config.yaml").read_text()))
    return run


def _hostile(kind: str, config: str) -> str:
    """``config.yaml`` made to run code (an import path), to expand to gigabytes (aliases) or to exhaust
    the parser (nesting)."""
    if kind == "import":
        data = yaml.safe_load(config)
        data["env"]["type"] = "payload:Cfg"
        return yaml.safe_dump(data)
    if kind == "alias":
        return "bomb: &a [1, 2, 3]\nbombs: [*a, *a, *a]\n" + config
    return "deep: " + "[" * 10_000 + "]" * 10_000 + "\n" + config


def _argv(command: tuple[str, str | None, bool], config: Path, run: Path) -> list[str]:
    verb, change, overwrite = command
    argv = [verb, "--model-dir", str(run)]
    if verb == "train":
        argv += ["--config", str(config), *(["--overwrite"] if overwrite else [])]
    if verb != "eval":
        argv.append("--no-progress")
    return argv + (["--set", change] if change else [])


def _kept(files: dict[str, str]) -> dict[str, str]:
    """What a refused command must leave as it was: all but the curves (a refused resume may have opened
    its event file) and hidden crash leftovers (cleaned up whenever a run takes the directory)."""
    return {k: v for k, v in files.items() if not k.startswith(("tensorboard", "."))}


def _saved(files: dict[str, str]) -> dict[str, str]:
    """A run's saved models: best/ and the numbered checkpoints' files (curves and config aside)."""
    return {k: v for k, v in files.items() if k.split(os.sep)[0] == "best" or k.split(os.sep)[0].isdigit()}


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(state=st.sampled_from(STATES), commands=st.lists(st.sampled_from(COMMANDS), min_size=1, max_size=2))
def test_no_command_loses_a_finished_run_writes_outside_or_errs_in_more_than_a_line(
    template: Path,
    capsys: pytest.CaptureFixture[str],
    state: str,
    commands: list[tuple[str, str | None, bool]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "payload.py").write_text(PAYLOAD)
        sys.path.insert(0, tmp)  # an import of what config.yaml names would succeed: none may happen
        try:
            _run_commands(root, template, state, commands, capsys)
        finally:
            sys.path.remove(tmp)
            sys.modules.pop("payload", None)


def _run_commands(
    root: Path,
    template: Path,
    state: str,
    commands: list[tuple[str, str | None, bool]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Runs ``commands`` over a directory in ``state``, checking after each what must hold."""
    (root / "victim").mkdir()
    (root / "victim" / "keep.txt").write_text("outside")
    outside = snapshot(root / "victim")
    run = _prepare(state, template, root)
    config = tiny_config(root)
    capsys.readouterr()
    for command in commands:
        before = snapshot(run) if run.exists() else {}
        status = main(_argv(command, config, run))
        after = snapshot(run) if run.exists() else {}
        assert snapshot(root / "victim") == outside, command
        assert not (root / "payload-ran").exists(), command
        if status == 2:
            one_error_line(capsys)
            assert _kept(after) == _kept(before), command
        else:
            assert status == 0, command
            capsys.readouterr()
            replaced = command[0] == "train" and command[2]
            if not replaced:  # every saved file is still there (best may have improved, not vanished)
                assert set(_saved(before)) - set(_saved(after)) <= _pruned(before, after), command


def _pruned(before: dict[str, str], after: dict[str, str]) -> set[str]:
    """Files of older checkpoints that ``keep_checkpoints`` rotated out after newer ones were saved."""
    newest = max((int(k.split(os.sep)[0]) for k in after if k.split(os.sep)[0].isdigit()), default=-1)
    return {k for k in before if k.split(os.sep)[0].isdigit() and int(k.split(os.sep)[0]) < newest}
