"""What a run or a resume refuses before it writes anything, each in one line naming the field or file: a
budget that leaves nothing to do, a checkpoint that fails to load, hostile YAML, a directory holding what no
run saved, the filesystem root or the home directory."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from border_py.checkpoint import TRAINER_STATE_FILE
from border_py.run.cli import main
from border_py.run.rundir import RunDir
from tests.run.tiny import tiny_config


def _main(*args: str) -> int:
    return main([*args, "--no-progress"] if args[0] in ("train", "resume") else list(args))


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        (
            ["trainer.max_opts=null", "trainer.max_env_steps=50"],
            r"trainer.max_env_steps \(50\) ends before the first update: trainer.warmup_period is 100",
        ),
        (
            ["trainer.eval_interval=100"],
            r"at most 40 opt steps .* fewer than trainer.eval_interval asks \(100 opt steps of 2 env steps: "
            r"200 env steps\): no evaluation "
            r"would run.*"
            r"raise the budget \(trainer.max_opts=100\) or lower trainer.eval_interval \(to 40 or fewer\)",
        ),
        (  # a budget in env steps over opt steps of several env steps: both units said, a working value
            [
                "trainer.max_opts=null",
                "trainer.max_env_steps=400",
                "trainer.opt_interval=4",
                "trainer.eval_interval=100",
            ],
            r"at most 75 opt steps .*raise the budget \(trainer.max_env_steps=500, an opt step every 4 env "
            r"steps\) or lower trainer.eval_interval \(to 75 or fewer\)",
        ),
        (  # PPO's units (issue 51, item 6): an interval in env steps, refused in env steps with both units
            [
                "trainer.max_opts=null",
                "trainer.max_env_steps=400",
                "trainer.opt_interval=4",
                "trainer.eval_interval=null",
                "trainer.eval_interval_env_steps=1000",
            ],
            r"at most 75 opt steps .* fewer than trainer.eval_interval_env_steps asks \(250 opt steps of 4 "
            r"env steps: 1000 env steps\).*lower trainer.eval_interval_env_steps \(to 300 or fewer\)",
        ),
    ],
)
def test_a_budget_that_ends_before_the_first_update_or_evaluation_is_refused_up_front(
    changes: list[str], match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert (
        _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--set", *changes)
        == 2
    )
    assert re.search(match, capsys.readouterr().err)
    assert not run.exists()


def test_a_resume_that_would_train_nothing_is_refused_naming_the_limit_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run bounded by env steps, resumed with more opt steps only (it used to exit 0 having trained
    nothing), and a finished run resumed as it was."""
    run = tmp_path / "run"
    bounded = ["--set", "trainer.max_opts=null", "trainer.max_env_steps=160"]
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), *bounded) == 0
    saved = (run / "config.yaml").read_bytes()
    capsys.readouterr()
    assert _main("resume", "--model-dir", str(run), "--set", "trainer.max_opts=500") == 2
    err = capsys.readouterr().err
    assert (
        "the run is at env steps 160 already and trainer.max_env_steps is 160: it would train nothing" in err
    )
    assert (run / "config.yaml").read_bytes() == saved
    assert _main("resume", "--model-dir", str(run), "--set", "trainer.max_env_steps=200") == 0
    assert RunDir(run).last_result().env_steps == 200


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        ("agent.device=meta", "'device' 'meta': border_py's agents run on 'cpu' and 'cuda'"),
        ("agent.device=mps", "'device' 'mps': border_py's agents run on 'cpu' and 'cuda'"),
        ("buffer", "40/replay_buffer.npz is not a readable replay buffer file"),
        ("rng", "40/trainer_state.json: rng: not a saved set of RNG states: OverflowError"),
        (
            "rng position",
            "40/trainer_state.json: rng: not a saved set of RNG states: ValueError(\"numpy's RNG "
            'position must be in [0, 624], got 1000000000")',
        ),
        ("books key", "40/trainer_state.json: books holds keys no border_py writes: ['opt_steps_extra']"),
        ("sampler action", "40/trainer_state.json: source.sampler: "),
    ],
)
def test_a_resume_refused_while_it_loads_writes_nothing_at_all(
    damage: str, match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither config.yaml nor a TensorBoard event file: a meta device or a negative RNG state used to fail
    with a traceback after both were written, a damaged buffer after the event file."""
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    changes = ["trainer.max_opts=60"]
    if damage == "buffer":
        buffer = run / "40" / "replay_buffer.npz"
        buffer.write_bytes(buffer.read_bytes()[:300])
    elif damage == "rng":
        file = run / "40" / TRAINER_STATE_FILE
        state = json.loads(file.read_text())
        state["rng"]["python"][1][5] = -3
        file.write_text(json.dumps(state))
    elif damage != "buffer" and " " in damage:
        file = run / "40" / TRAINER_STATE_FILE
        state = json.loads(file.read_text())
        if damage == "rng position":  # numpy took it, and its next draw was a segmentation fault
            state["rng"]["numpy"]["state"]["pos"] = 10**9
        elif damage == "books key":
            state["books"]["opt_steps_extra"] = 1
        else:
            assert state["source"]["sampler"]["obs"] is not None  # an unfinished episode, replayed on resume
            state["source"]["sampler"]["actions"] = [7]  # CartPole has actions 0 and 1
        file.write_text(json.dumps(state))
    else:
        changes.append(damage)
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert _main("resume", "--model-dir", str(run), "--set", *changes) == 2
    err = capsys.readouterr().err
    assert match in err
    assert len(err.strip().splitlines()) == 1
    assert {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("verb", ["eval", "resume"])
def test_a_config_yaml_with_aliases_or_deep_nesting_is_refused_in_one_line(
    verb: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert _main("train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run)) == 0
    config = run / "config.yaml"
    good = config.read_text()
    for hostile, match in [
        ("x: &a [1, 2, 3, 4]\ny: &b [*a, *a, *a, *a]\n", "the alias *a is refused"),
        ("deep: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested deeper than 64 levels"),
    ]:
        config.write_text(hostile + good)
        capsys.readouterr()
        assert _main(verb, "--model-dir", str(run)) == 2
        err = capsys.readouterr().err
        assert f"{config}: not valid YAML: " in err
        assert match in err
        assert len(err.strip().splitlines()) == 1


def test_a_run_never_replaces_what_it_did_not_save_nor_goes_into_root_or_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder holding a ``2023/`` or ``best/`` of its own (a run would replace them; --overwrite used
    to delete every digit-named folder) is refused, with or without --overwrite, and left as it was; so
    are the filesystem root and the home directory, leaving no lock."""
    photos = tmp_path / "photos"
    (photos / "2023").mkdir(parents=True)
    (photos / "2023" / "beach.jpg").write_bytes(b"jpg")
    config = str(tiny_config(tmp_path))
    for flags in ([], ["--overwrite"]):
        capsys.readouterr()
        assert _main("train", "--config", config, "--model-dir", str(photos), *flags) == 2
        assert "holds 2023, which no run of border_py saved" in capsys.readouterr().err
        assert sorted(p.name for p in photos.iterdir()) == ["2023"]
    (photos / "2023").rename(photos / "best")
    assert _main("train", "--config", config, "--model-dir", str(photos), "--overwrite") == 2
    assert (photos / "best" / "beach.jpg").read_bytes() == b"jpg"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    for refused, what in (("/", "the filesystem root"), (str(tmp_path / "home"), "your home")):
        capsys.readouterr()
        assert _main("train", "--config", config, "--model-dir", refused) == 2
        assert f"model_dir '{refused}' is {what}" in capsys.readouterr().err
    assert not Path("/.lock").exists()
    assert list((tmp_path / "home").iterdir()) == []
