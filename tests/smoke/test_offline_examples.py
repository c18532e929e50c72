"""Every offline example runs end to end on a tiny dataset of random play: flags, YAML config, saves,
evaluation; AWAC's online fine-tuning too."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import gymnasium as gym
import numpy as np
import pytest

from border_py import GymEnvConfig, load_yaml, save_yaml
from border_py.checkpoint import load_meta
from border_py.datasets import collect
from examples import awac_pendulum, bc_cartpole, bc_pendulum, iql_hopper, iql_pendulum

EXAMPLES = [bc_pendulum, bc_cartpole, iql_pendulum, awac_pendulum, iql_hopper]


class _Random:
    def __init__(self, space: gym.Space[Any]) -> None:
        self.space = space
        space.seed(0)

    def sample(self, obs: Any) -> Any:
        return np.asarray(self.space.sample())


def _tiny(example: ModuleType, data: Path) -> Any:
    config = example.Config()
    env = config.env.name
    collect(
        _Random(gym.make(env).action_space),
        GymEnvConfig(name=env),
        300,
        config.dataset.dataset_id,
        data_path=str(data),
    )
    return attrs.evolve(
        config,
        dataset=attrs.evolve(config.dataset, data_path=str(data)),
        trainer=attrs.evolve(config.trainer, eval_interval=20, save_interval=20, record_interval=10),
        agent=attrs.evolve(config.agent, batch_size=32),
        evaluator=attrs.evolve(config.evaluator, n_episodes=1),
    )


@pytest.mark.smoke
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda m: m.__name__.split(".")[-1])
def test_offline_example_trains_then_evaluates(
    example: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    save_yaml(_tiny(example, tmp_path / "data"), tmp_path / "tiny.yaml")
    model_dir = tmp_path / "run"
    argv = ["--train", "--eval", "--config", str(tmp_path / "tiny.yaml"), "--model-dir", str(model_dir)]
    assert example.main([*argv, "--max-opts", "40", "--no-progress"]) == 0
    assert sorted(p.name for p in model_dir.iterdir() if p.is_dir()) == ["20", "40", "best", "tensorboard"]
    meta = load_meta(model_dir / "40")
    assert meta["config"]["dataset"]["dataset_id"] == example.Config().dataset.dataset_id
    assert meta["config"]["dataset_size"] == 300
    assert f"mean return {load_meta(model_dir / 'best')['score']:.1f}" in capsys.readouterr().out
    assert load_yaml(example.Config, model_dir / "config.yaml").trainer.max_opts == 40


@pytest.mark.smoke
def test_awac_fine_tunes_online_from_its_offline_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save_yaml(_tiny(awac_pendulum, tmp_path / "data"), tmp_path / "tiny.yaml")
    model_dir = tmp_path / "run"
    argv = [
        "--train",
        "--config",
        str(tmp_path / "tiny.yaml"),
        "--model-dir",
        str(model_dir),
        "--no-progress",
    ]
    assert awac_pendulum.main([*argv, "--max-opts", "20", "--finetune-env-steps", "60"]) == 0
    out = capsys.readouterr().out
    assert "offline best" in out
    assert "online fine-tuning best" in out
    finetune = load_meta(model_dir / "finetune" / "best")
    assert finetune["env_steps"] <= 60
    assert finetune["config"]["replay_buffer"]["dataset"]["dataset_id"] == "pendulum-medium-v0"
    assert load_meta(model_dir / "finetune" / "60")["env_steps"] == 60  # the final policy is kept too


@pytest.mark.smoke
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda m: m.__name__.split(".")[-1])
def test_shipped_yaml_config_equals_the_example_defaults(example: ModuleType) -> None:
    name = example.__name__.split(".")[-1]
    shipped = Path(__file__).parents[2] / "examples" / "configs" / f"{name}.yaml"
    assert load_yaml(example.Config, shipped) == example.Config()
