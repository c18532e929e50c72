"""A file is data, never code: a module that ``config.yaml`` (or a ``--config`` file) names is imported only
with ``--trust-code``; a module named on the command line (``--env module:EnvId-v0``) is the user's word."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import yaml

from border_py.run.cli import main
from tests.run.conftest import make_dataset
from tests.run.test_reliability import one_error_line
from tests.run.tiny import tiny_config

PAYLOAD = "from pathlib import Path\nPath('{marker}').write_text('ran')\n"

ENV_MODULE = '''
import gymnasium as gym
import numpy as np


class Walk(gym.Env):
    """Walk right from 0 to 3: reward 1 at the end, 10 steps at most."""

    observation_space = gym.spaces.Box(0.0, 3.0, (1,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x, self.t = 0, 0
        return np.array([0.0], np.float32), {}

    def step(self, action):
        self.x, self.t = max(0, self.x + (1 if action == 1 else -1)), self.t + 1
        done = self.x == 3
        return np.array([self.x], np.float32), float(done), done, self.t >= 10, {}


gym.register(id="{env_id}", entry_point=Walk, max_episode_steps=10)
'''


USER_MODULES = ("payload", "walk", "walk2")


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The current folder is ``tmp_path``; ``sys.path`` comes back as it was, and the user modules a test
    writes are forgotten."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    for name in USER_MODULES:
        sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("env", {"type": "payload:Cfg"}),
        ("env", {"name": "payload:Evil-v0"}),
        ("agent", {"type": "payload:Agent"}),
    ],
)
def test_a_run_directory_naming_a_module_runs_no_code_under_any_verb(
    field: str, value: dict[str, str], isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = isolated / "downloaded"
    assert (
        main(["train", "--config", str(tiny_config(isolated)), "--model-dir", str(run), "--no-progress"]) == 0
    )
    marker = isolated / "ran.txt"
    (isolated / "payload.py").write_text(PAYLOAD.format(marker=marker))
    config = yaml.safe_load((run / "config.yaml").read_text())
    config[field] = {**config[field], **value}
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    capsys.readouterr()
    for verb in (["eval"], ["resume"], ["video", "--out", "v.gif"], ["export", "--out", "x"]):
        assert main([verb[0], "--model-dir", str(run), *verb[1:]]) == 2
        err = capsys.readouterr().err
        assert f"{field}." in err
        assert "would import the module 'payload'" in err
        assert "--trust-code" in err
        assert err.count("\n") == 1
    assert not marker.exists()
    assert "payload" not in sys.modules


def test_a_config_file_naming_a_module_needs_trust_code(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "payload.py").write_text(PAYLOAD.format(marker=isolated / "ran.txt"))
    config = tiny_config(isolated, env={"type": "payload:Cfg"})
    assert main(["train", "--config", str(config), "--model-dir", "run"]) == 2
    assert "env.type would import the module 'payload'" in capsys.readouterr().err
    assert not (isolated / "ran.txt").exists()
    assert not (isolated / "run").exists()
    assert main(["train", "--config", str(config), "--model-dir", "run", "--trust-code"]) == 2  # imported now
    assert (isolated / "ran.txt").exists()


def test_your_own_gymnasium_env_by_module_and_id_trains_and_evaluates_from_your_folder(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "walk.py").write_text(ENV_MODULE.replace("{env_id}", "TrustWalk-v0"))
    budget = ["--set", "trainer.max_opts=200", "trainer.eval_interval=100", "trainer.warmup_period=100"]
    assert main(["train", "dqn", "--env", "walk:TrustWalk-v0", "--no-progress", *budget]) == 0
    run = isolated / "runs" / "dqn" / "TrustWalk-v0" / "seed0"
    assert yaml.safe_load((run / "config.yaml").read_text())["env"]["name"] == "walk:TrustWalk-v0"
    assert "note: the zoo has no dqn entry for walk:TrustWalk-v0" in capsys.readouterr().err
    assert main(["eval", "--model-dir", str(run)]) == 2
    assert "env.name would import the module 'walk'" in capsys.readouterr().err
    assert main(["eval", "--model-dir", str(run), "--trust-code"]) == 0
    assert "mean return" in capsys.readouterr().out


def test_a_missing_module_or_function_is_one_line_naming_it(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "dqn", "--env", "nowhere:Gone-v0"]) == 2
    assert "--env 'nowhere:Gone-v0': cannot import 'nowhere'" in capsys.readouterr().err
    (isolated / "walk2.py").write_text("x = 1\n")
    assert main(["train", "dqn", "--env", "walk2:make"]) == 2
    assert "walk2 has no function 'make'" in capsys.readouterr().err
    assert not (isolated / "runs").exists()


def test_a_resume_joins_no_ray_cluster_its_config_yaml_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An asynchronous run's config.yaml names a cluster: resume drops it (a local Ray, or RAY_ADDRESS),
    and joins one only when the command line says so."""
    import border_py.run.cli as cli

    run = tmp_path / "run"
    run.mkdir()
    data = yaml.safe_load(tiny_config(tmp_path).read_text())
    data["distributed"] = {"n_actors": 1, "address": "10.9.8.7:6379"}
    (run / "config.yaml").write_text(yaml.safe_dump(data))
    addresses: list[object] = []

    def captured(data: dict[str, object], source: str, args: object, resume: bool) -> int:
        distributed = data["distributed"]
        assert isinstance(distributed, dict)
        addresses.append(distributed["address"])
        return 0

    monkeypatch.setattr(cli, "train_data", captured)
    assert main(["resume", "--model-dir", str(run)]) == 0
    assert main(["resume", "--model-dir", str(run), "--set", "distributed.address=auto"]) == 0
    assert addresses == [None, "auto"]


OFFLINE = ["--no-progress", "--set", "dataset.dataset_id=tiny-v0", "trainer.max_opts=4",
           "trainer.eval_interval=4", "trainer.save_interval=4", "evaluator.n_episodes=1",
           "agent.batch_size=16"]  # fmt: skip


def _spaceless(data: Path, env_spec: Mapping[str, object]) -> Path:
    """The dataset ``data/tiny-v0`` with no spaces in its metadata: Minari builds ``env_spec`` to ask."""
    file = data / "tiny-v0" / "data" / "metadata.json"
    metadata = json.loads(file.read_text())
    del metadata["observation_space"], metadata["action_space"]
    metadata["env_spec"] = json.dumps({"additional_wrappers": [], **env_spec})
    file.write_text(json.dumps(metadata))
    return file


def test_a_dataset_runs_no_code_its_metadata_names_without_trust_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 53: Minari builds the env a dataset's ``env_spec`` names when its metadata has no spaces; an
    entry point of the file's choosing ran (``os:system``) under ``train`` and under ``resume`` of a
    downloaded run whose config.yaml names the dataset."""
    data, run, marker = tmp_path / "data", tmp_path / "run", tmp_path / "ran"
    make_dataset("tiny-v0", "Pendulum-v1", data, steps=200)
    flags = ["train", "bc", "--env", "tiny-v0", *OFFLINE, f"dataset.data_path={data}", "--model-dir"]
    assert main([*flags, str(run)]) == 0  # the downloaded run
    hostile = {"id": "Evil-v0", "entry_point": "os:mkdir", "kwargs": {"path": str(marker)}}
    file = _spaceless(data, hostile)
    capsys.readouterr()
    resume = ["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=8"]
    for command in (resume, [*flags, str(tmp_path / "new")]):
        assert main(command) == 2
        line = one_error_line(capsys)
        assert f"{file}: it has no observation_space and action_space" in line
        assert "entry point 'os:mkdir'" in line
        assert "--trust-code" in line
        assert not marker.exists()
    assert not (tmp_path / "new").exists()
    assert main([*flags, str(tmp_path / "trusted"), "--trust-code"]) == 2
    assert marker.is_dir()  # trusted: Minari built it, os.mkdir made the folder (and is no env)


def test_a_spaceless_dataset_of_an_env_gymnasium_registered_loads_without_trust_code(tmp_path: Path) -> None:
    import gymnasium as gym

    data = tmp_path / "data"
    make_dataset("tiny-v0", "Pendulum-v1", data, steps=200)
    _spaceless(data, json.loads(gym.spec("Pendulum-v1").to_json()))
    flags = [*OFFLINE, f"dataset.data_path={data}", "--model-dir", str(tmp_path / "run")]
    assert main(["train", "bc", "--env", "tiny-v0", *flags]) == 0


def test_trust_code_says_once_which_module_it_imported_from_the_folder(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 53: ``--trust-code`` imported a module from the current folder and said nothing."""
    (isolated / "walk.py").write_text(ENV_MODULE.replace("{env_id}", "TrustNote-v0"))
    config = tiny_config(isolated, env={"name": "walk:TrustNote-v0"})
    flags = ["--model-dir", "run", "--no-progress", "--trust-code"]
    assert main(["train", "--config", str(config), *flags]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "--trust-code" in line]
    assert notes == [f"note: --trust-code: importing the module 'walk' from {isolated / 'walk.py'}"]
    assert main(["eval", "--model-dir", "run", "--trust-code"]) == 0  # imported already: nothing new to say
    assert "--trust-code" not in capsys.readouterr().err
