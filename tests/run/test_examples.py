"""The example programs cannot drift from the zoo: each states its zoo entry in typed Python, field by field
equal, and takes the ``border-py`` command's flags (their runs are in tests/smoke/test_examples.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from border_py.run import codec, zoo
from tests.run.examples_table import EXAMPLES, Example, run_example

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix.rstrip("."): data}
    found: dict[str, Any] = {}
    for key, value in data.items():
        found.update(_leaves(value, f"{prefix}{key}."))
    return found


def test_every_algorithm_of_the_zoo_has_an_example_program_named_for_it() -> None:
    assert {example.algo for example in EXAMPLES} == set(zoo.algorithms())
    algos = zoo.algorithms()  # a name may hold an underscore: recurrent_ppo_cartpole
    programs = {p.stem for p in EXAMPLES_DIR.glob("*.py") if any(p.stem.startswith(f"{a}_") for a in algos)}
    assert programs == {example.module for example in EXAMPLES}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_an_examples_experiment_equals_its_zoo_entry_field_by_field(example: Example) -> None:
    ours = _leaves(codec.experiment_to_dict(example.experiment()))
    entry = zoo.experiment(example.algo, example.env_id, variant=example.variant)
    theirs = _leaves(codec.experiment_to_dict(entry))
    differing = {key: (ours.get(key), theirs.get(key)) for key in ours.keys() | theirs.keys()
                 if ours.get(key) != theirs.get(key)}  # fmt: skip
    assert differing == {}, "example vs zoo"


def test_the_comparison_sees_a_changed_field(monkeypatch: pytest.MonkeyPatch) -> None:
    import attrs

    from examples import dqn_cartpole

    changed = attrs.evolve(dqn_cartpole.EXPERIMENT, torch_threads=2)
    monkeypatch.setattr(dqn_cartpole, "EXPERIMENT", changed)
    with pytest.raises(AssertionError, match="torch_threads"):
        test_an_examples_experiment_equals_its_zoo_entry_field_by_field(EXAMPLES[0])


# The algorithms' programs and the two tutorial programs on run_cli (custom_env.py's --help: tests/unit).
@pytest.mark.parametrize(
    "module", sorted({e.module for e in EXAMPLES} | {"custom_agent", "custom_value_agent"})
)
def test_an_example_takes_the_clis_flags(
    module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_example(module, ["--help"], monkeypatch) == 0
    out = capsys.readouterr().out
    actions = ("--train", "--resume", "--eval", "--video", "--export")
    for flag in (*actions, "--model-dir", "--seed", "--set", "--device"):
        assert flag in out
    assert ("--finetune" in out) == (module == "awac_pendulum")


def test_an_example_refuses_a_run_without_an_action_and_a_bad_override_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_example("dqn_cartpole", [], monkeypatch) == 2
    assert (
        "one of the arguments --train --resume --eval --video --export is required" in capsys.readouterr().err
    )
    argv = ["--train", "--model-dir", str(tmp_path / "run"), "--set", "agent.lr=fast"]
    assert run_example("dqn_cartpole", argv, monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert err.count("\n") == 1
    assert "agent" in err
    assert not (tmp_path / "run").exists()
    argv = ["--train", "--model-dir", str(tmp_path / "run"), "--device", "cpu"]  # a run's is agent.device
    assert run_example("dqn_cartpole", argv, monkeypatch) == 2
    assert "--device goes with --eval, --video and --export" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
