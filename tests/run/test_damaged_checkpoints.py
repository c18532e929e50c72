"""A checkpoint whose files were damaged or edited (issue 53): ``eval`` and ``resume`` refuse it in one
line naming the file and the field or tensor, and write nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from border_py.run.cli import main
from tests.run.test_reliability import one_error_line, snapshot
from tests.run.tiny import tiny_config


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny run (checkpoints 20, 40 and best) to copy into each test."""
    root = tmp_path_factory.mktemp("template")
    run = root / "run"
    assert main(["train", "--config", str(tiny_config(root)), "--model-dir", str(run), "--no-progress"]) == 0
    return run


@pytest.fixture
def run(template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(template, tmp_path / "run"))


def _episode_start(state: dict[str, Any]) -> dict[str, Any]:
    start: dict[str, Any] = state["source"]["sampler"]["episode_start"]
    return start


def _set_rng(value: int) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        _episode_start(state)["np_random"]["state"]["state"] = value

    return change


def _set_steps(value: int) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        _episode_start(state)["env_steps"] = value

    return change


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_set_rng(-1), "episode_start.np_random is not a PCG64 state"),
        (_set_rng(2**200), "episode_start.np_random is not a PCG64 state"),
        (_set_steps(10**30), "episode_start.env_steps must be a whole number in [0, 2**63 - 1], got 1000"),
        (_set_steps(-3), "episode_start.env_steps must be a whole number in [0, 2**63 - 1], got -3"),
    ],
    ids=["rng-1", "rng2**200", "steps10**30", "steps-3"],
)
def test_an_edited_episode_start_is_refused_in_one_line_naming_the_file_and_field(
    run: Path, change: Callable[[dict[str, Any]], None], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An RNG state numpy cannot hold was an OverflowError traceback; a negative or huge env step count
    was taken."""
    file = run / "40" / "trainer_state.json"
    state = json.loads(file.read_text())
    change(state)
    file.write_text(json.dumps(state))
    before = snapshot(run)
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"error: {file}: source.sampler: CartPole-v1: "), line
    assert says in line
    assert snapshot(run) == before


def _set_source(state: dict[str, Any]) -> None:
    state["source"] = []


def _set_action(state: dict[str, Any]) -> None:
    state["source"]["sampler"]["actions"][0] = {"a": 1}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_set_source, "source must hold 'buffer_saved' (true or false) and 'sampler'"),
        (_set_action, "source.sampler: actions[0] = {'a': 1}: the env refuses it: int() argument must be"),
    ],
    ids=["source", "action"],
)
def test_a_source_or_action_of_another_shape_is_refused_naming_the_file(
    run: Path, change: Callable[[dict[str, Any]], None], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by tests/fuzz: an AttributeError and a TypeError traceback; a ValueError naming no file."""
    file = run / "40" / "trainer_state.json"
    state = json.loads(file.read_text())
    change(state)
    file.write_text(json.dumps(state))
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    assert one_error_line(capsys).startswith(f"error: {file}: {says}")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_weights_are_refused_by_eval_and_resume_naming_the_file_and_tensor(
    run: Path, value: float, capsys: pytest.CaptureFixture[str]
) -> None:
    for saved in ("40", "best"):
        file = run / saved / "qnet.pt"
        weights = torch.load(file, weights_only=True)
        weights["net.0.bias"][3] = value
        torch.save(weights, file)
    before = snapshot(run)
    assert main(["eval", "--model-dir", str(run)]) == 2
    assert one_error_line(capsys).startswith(
        f"error: {run / 'best' / 'qnet.pt'}: the tensor net.0.bias holds 1 "
    )
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    line = one_error_line(capsys)
    assert line.startswith(f"error: {run / '40' / 'qnet.pt'}: the tensor net.0.bias holds 1 non-finite"), line
    assert snapshot(run) == before


def test_a_non_finite_optimiser_moment_is_refused_naming_it(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = run / "40" / "state.pt"
    state = torch.load(file, weights_only=True)
    moments = state["optimizer"]["state"][0]
    moments["exp_avg_sq"].fill_(float("nan"))
    torch.save(state, file)
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    assert f"{file}: the tensor optimizer.state.0.exp_avg_sq holds" in one_error_line(capsys)


def _set_opt_steps(state: dict[str, Any]) -> None:
    state["opt_steps"] = -5


def _set_explorer_rng(state: dict[str, Any]) -> None:
    state["explorer"]["rng"]["state"]["state"] = -1


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (_set_opt_steps, "opt_steps must be a whole number in [0, 2**63 - 1], got -5"),
        (_set_explorer_rng, "explorer.rng is not a PCG64 state: OverflowError("),
    ],
    ids=["opt_steps", "explorer"],
)
def test_an_agent_state_out_of_range_is_refused_by_eval_and_resume_naming_the_file_and_key(
    run: Path, change: Callable[[dict[str, Any]], None], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative ``opt_steps`` was taken without a word; an explorer RNG state of -1 was an
    ``OverflowError`` traceback."""
    for saved in ("40", "best"):
        file = run / saved / "state.pt"
        state = torch.load(file, weights_only=True)
        change(state)
        torch.save(state, file)
    before = snapshot(run)
    assert main(["eval", "--model-dir", str(run)]) == 2
    assert one_error_line(capsys).startswith(f"error: {run / 'best' / 'state.pt'}: {says}")
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    assert one_error_line(capsys).startswith(f"error: {run / '40' / 'state.pt'}: {says}")
    assert snapshot(run) == before
