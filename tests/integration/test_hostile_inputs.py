"""``border-py datasets`` given hostile paths, and experiments whose env settings hold huge values: each is
refused in one line (exit status 2) within seconds, before anything trains or is written; no traceback,
no hang (every command here runs under a timeout a hang would exceed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from border_py.config import MAX_YAML_CHARS
from tests.run.test_reliability import snapshot
from tests.run.tiny import tiny_config

ROOT = Path(__file__).parents[2]
HUGE = 10**30


def _refused(*argv: str, timeout: float = 60) -> str:
    """The one line ``border-py argv`` is refused with (exit status 2)."""
    done = subprocess.run(
        [sys.executable, "-m", "border_py", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def _datasets(tmp_path: Path, out: Path | str, work: Path | str) -> str:
    return _refused("datasets", "--only", "cartpole", "--out", str(out), "--work", str(work))


def test_datasets_refuses_a_file_where_its_out_or_work_directory_goes(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("mine")
    assert f"--out {file}: {file} is a file, not a directory" in _datasets(tmp_path, file, tmp_path / "w")
    assert f"--work {file}: {file} is a file" in _datasets(tmp_path, tmp_path / "o", file)
    # ``file/..`` is tmp_path to a lexical normaliser, no directory at all to the OS
    assert f"{file} is a file, not a directory" in _datasets(tmp_path, f"{file}/..", tmp_path / "w")
    assert f"{file} is a file" in _datasets(tmp_path, tmp_path / "o", f"{file}/sub")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert file.read_text() == "mine"


def test_datasets_never_writes_through_a_link_planted_for_a_dataset_or_a_behaviour_run(
    tmp_path: Path,
) -> None:
    victim = tmp_path / "victim"  # another run, which a behaviour run with overwrite would clear
    victim.mkdir()
    (victim / "config.yaml").write_text(tiny_config(tmp_path).read_text())
    (victim / "best").mkdir()
    before = snapshot(victim)
    out, work = tmp_path / "out", tmp_path / "work"
    work.mkdir()
    (work / "dqn_cartpole_medium").symlink_to(victim)
    line = _datasets(tmp_path, out, work)
    assert (
        f"{work / 'dqn_cartpole_medium'} is a symbolic link: border-py datasets never writes through one"
        in line
    )
    out.mkdir()
    (out / "cartpole-medium-v0").symlink_to(victim)
    assert f"{out / 'cartpole-medium-v0'} is a symbolic link" in _datasets(tmp_path, out, tmp_path / "w2")
    assert snapshot(victim) == before
    assert not (tmp_path / "w2").exists()


def test_datasets_resolves_dot_dot_after_a_link_as_the_os_does_and_refuses_a_dataset_built_already(
    tmp_path: Path,
) -> None:
    far, base = tmp_path / "far", tmp_path / "base"
    (far / "target").mkdir(parents=True)
    (far / "cartpole-medium-v0" / "data").mkdir(parents=True)  # built already, where the OS looks
    base.mkdir()
    (base / "link").symlink_to(far / "target")
    line = _datasets(tmp_path, base / "link" / "..", tmp_path / "w")  # the OS: far; lexically: base
    assert f"dataset {far / 'cartpole-medium-v0'} exists already: remove it to build it again" in line
    assert sorted(p.name for p in base.iterdir()) == ["link"]


def test_env_settings_of_huge_values_are_refused_in_one_line_naming_the_field(tmp_path: Path) -> None:
    train = ["train", "dqn", "--env", "CartPole-v1", "--model-dir", str(tmp_path / "run"), "--set"]
    # env.kwargs is filled key by key; the env's own make refuses the value, in one line naming the field.
    line = _refused(*train, f"env.kwargs.max_episode_steps={HUGE}")
    assert "env: env kwargs {'max_episode_steps': 1000000000000000000000000000000}" in line
    line = _refused(*train, f"env.max_episode_steps={HUGE}")
    assert f"expected an integer in [-2**63, 2**63 - 1], got {HUGE}" in line
    assert "env.max_episode_steps" in line
    # Inside int64, and an evaluation of an env that never ends an episode on its own never ended.
    line = _refused(*train, "env.max_episode_steps=1000000000000")
    assert "'max_episode_steps' must be in [1, 1,000,000], got 1,000,000,000,000" in line
    line = _refused(*train, f"evaluator.n_episodes={HUGE}")  # was an OverflowError in the evaluator
    assert f"expected an integer in [-2**63, 2**63 - 1], got {HUGE}" in line
    assert "evaluator.n_episodes" in line
    text = "x" * 100_000  # a kwarg the env refuses: the line names it, cut short
    line = _refused(*train, f"env.kwargs={{x: {text}}}")
    assert "env kwargs {'x': 'xxx" in line
    assert "are not accepted by CartPole-v1" in line
    assert len(line) < 2_000
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("value", [list(range(200_000)), "y" * 2**21], ids=["array", "string"])
def test_an_experiment_file_holding_megabytes_of_env_kwargs_is_refused_at_once(
    value: object, tmp_path: Path
) -> None:
    config = tiny_config(tmp_path)
    data = yaml.safe_load(config.read_text())
    data["env"]["kwargs"] = {"sutton_barto_reward": value}
    config.write_text(yaml.safe_dump(data, default_flow_style=True, width=2**31))
    # 8 MB of them trained, in nearly four minutes: 36 s to parse, 14 s each time the run wrote its config.
    line = _refused("train", "--config", str(config), "--model-dir", str(tmp_path / "run"), timeout=30)
    assert f"{config}: " in line
    assert f"more than the {MAX_YAML_CHARS:,} a config or metadata file may hold" in line
    assert not (tmp_path / "run").exists()
