"""The run layer is light and leaves the process as it found it: the CLI's help, the zoo's listing and its
refusals of bad arguments (a refused ``--set`` too) import no torch, an experiment imports neither torch
nor the CLI (every zoo entry is read and checked without it), and a command or a run puts ``sys.path`` and
``warnings.showwarning`` back as they were."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from border_py.run import zoo
from border_py.run.cli import main
from border_py.run.commands import TrainOptions, _held_back

ROOT = Path(__file__).parents[2]

_AT_EXIT = """
import atexit, runpy, sys
atexit.register(lambda: print("LOADED", *sorted(m for m in {watched!r} if m in sys.modules), file=sys.stderr))
sys.argv = ["border-py", *{argv!r}]
runpy.run_module("border_py", run_name="__main__", alter_sys=True)
"""
"""``python -m border_py ARGV``, saying at exit which of the watched modules were imported."""


def _loaded_at_exit(argv: list[str], watched: tuple[str, ...] = ("torch",)) -> tuple[int, list[str], str]:
    code = _AT_EXIT.format(argv=argv, watched=watched)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED"))
    return done.returncode, line.split()[1:], done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["--help"], 0),
        (["zoo"], 0),
        (["zoo", "sac"], 0),
        (["zoo", "a2c", "Pendulum-v1"], 0),
        (["zoo", "dqn", "CartPole-v1", "--variant", "nope"], 2),
        (["train", "--help"], 0),
        (["datasets", "--help"], 0),
        (["train", "nosuch", "--env", "CartPole-v1"], 2),  # an unknown algorithm
        (["train", "--env", "CartPole-v1"], 2),  # no algorithm
        (["train", "dqn", "--env", "CartPole-v1", "--set", "agent.lr=abc"], 2),  # every config read
        (["train", "ppo", "--env", "CartPole-v1", "--set", "agent.device=tpu"], 2),  # the device's syntax
    ],
)
def test_the_cli_says_its_help_lists_the_zoo_and_refuses_bad_arguments_without_torch(
    argv: list[str], status: int
) -> None:
    returncode, loaded, output = _loaded_at_exit(argv)
    assert returncode == status, output
    assert loaded == [], output
    assert "Traceback" not in output


def test_an_experiment_imports_neither_torch_nor_the_cli() -> None:
    code = (
        "import sys, border_py.run.experiment, border_py.run.codec, border_py.run.zoo\n"
        "print(sorted(m for m in ('torch', 'border_py.run.cli', 'border_py.trainer.loop', "
        "'border_py.distributed.trainer') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


_EVERY_ZOO_ENTRY = """
import json, sys
from border_py.run import zoo
algos = [
    zoo.experiment(algo, env_id, variant=variant).algo
    for algo in zoo.algorithms()
    for env_id, variants in zoo.listing(algo).items()
    for variant in (None, *variants)
]
imported = [
    m for m in sorted(sys.modules)
    if m == "torch" or m.startswith("border_py.agents.") and m.endswith(".agent")  # an agent's module
]
print(json.dumps({"entries": len(algos), "algos": sorted(set(algos)), "imported": imported}))
"""


def test_every_zoo_entry_is_read_and_checked_without_torch() -> None:
    """Every entry and variant of the zoo, each of its configs made and validated and its step processor
    checked against its buffer, with neither torch nor an agent's module imported (torch comes with the
    agent when one is built)."""
    done = subprocess.run(
        [sys.executable, "-c", _EVERY_ZOO_ENTRY], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["imported"] == []
    assert found["algos"] == zoo.algorithms()
    assert found["entries"] > len(found["algos"])


_AGENT_PACKAGES = ("a2c", "awac", "bc", "cql", "crossq", "dqn", "iql", "iqn", "on_policy", "ppo", "qrdqn",
                   "recurrent_ppo", "sac", "td3", "td3bc", "tqc")  # fmt: skip


def test_the_package_faces_still_give_every_name() -> None:
    import border_py.agents
    import border_py.distributed
    import border_py.recorders
    import border_py.run
    import border_py.trainer

    agents = [importlib.import_module(f"border_py.agents.{name}") for name in _AGENT_PACKAGES]
    faces = (border_py.run, border_py.trainer, border_py.distributed, border_py.recorders, border_py.agents)
    for face in (*faces, *agents):
        assert set(face.__all__) <= set(dir(face))
        for name in face.__all__:
            assert getattr(face, name) is not None, f"{face.__name__}.{name}"
        with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
            face.nosuch  # noqa: B018


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--model-dir", "no-such-run", "--trust-code"],  # trust: the folder importable, then refused
        ["train", "dqn", "--env", "no_such_module:Walk-v0"],  # a module the command line names
    ],
)
def test_a_command_leaves_sys_path_as_it_found_it(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    before = list(sys.path)
    assert main(argv) == 2
    assert "error:" in capsys.readouterr().err
    assert sys.path == before


def test_overlapping_checks_hold_their_own_threads_warnings_and_put_showwarning_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two runs checked at once in threads, the first done first: each holds its own thread's warnings
    only (the main thread's are shown meanwhile), and ``warnings.showwarning`` is the one found once both
    are done (before, the second put the first's handler back, which then swallowed every warning)."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        with _held_back(TrainOptions(notes=("first",))) as checked:
            first_in.set()
            second_in.wait(5)
            warnings.warn("the first run's", stacklevel=1)
            checked()
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with _held_back(TrainOptions()) as checked:
            second_in.set()
            first_out.wait(5)
            checked()

    def in_thread(target: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                target()
            except BaseException as exc:  # reported by the test
                errors.append(exc)

        return threading.Thread(target=run)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        found = warnings.showwarning
        threads = [in_thread(first), in_thread(second)]
        for thread in threads:
            thread.start()
        second_in.wait(5)
        warnings.warn("the main thread's", stacklevel=1)  # while both hold
        for thread in threads:
            thread.join(10)
        assert warnings.showwarning is found
    assert errors == []
    assert [str(w.message) for w in seen] == ["the main thread's"]
    assert capsys.readouterr().err.splitlines() == ["first", "warning: the first run's"]
