"""YAML round trips and clear config errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py import (
    ConfigError,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    load_yaml,
    save_yaml,
)
from border_py.agents import DqnConfig, SoftmaxConfig
from border_py.replay_buffer import PerConfig


@pytest.mark.parametrize(
    "config",
    [
        TrainerConfig(max_opts=10, eval_interval=5, model_dir="m", save_interval=5),
        SimpleReplayBufferConfig(capacity=7, per=PerConfig(alpha=0.5)),
        DqnConfig(hidden=(8, 4), explorer=SoftmaxConfig(temperature=0.5), max_grad_norm=1.0),
        GymEnvConfig(name="CartPole-v1", kwargs={"sutton_barto_reward": True}),
    ],
)
def test_yaml_round_trip(config: object, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    save_yaml(config, path)
    assert load_yaml(type(config), path) == config


def test_unknown_key_is_refused_naming_key_and_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("max_opts: 10\nmax_opt: 3\n")
    with pytest.raises(ConfigError, match=r"unknown keys \['max_opt'\].*c\.yaml"):
        load_yaml(TrainerConfig, path)


def test_nested_unknown_key_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("capacity: 10\nper:\n  alfa: 0.5\n")
    with pytest.raises(ConfigError, match=r"unknown keys \['alfa'\] @ .*c\.yaml\.per"):
        load_yaml(SimpleReplayBufferConfig, path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("max_opts: 0\n", r"'max_opts' must be > 0: 0"),
        ("max_opts: 10\neval_interval: -1\n", r"'eval_interval' must be > 0: -1"),
        ("max_opts: 2.5\n", r"expected an integer, got 2\.5 .*max_opts"),
        ("max_opts: true\n", r"expected an integer, got True"),
        ("eval_interval: 3\n", r"missing required field 'max_opts'"),
        ("max_opts: 10\nsave_interval: 5\n", r"save_interval is set but model_dir is None"),
        ("- 1\n- 2\n", r"expected a mapping"),
    ],
)
def test_invalid_values_name_the_field(text: str, match: str, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_yaml(TrainerConfig, path)


def test_constructor_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="'opt_interval' must be > 0"):
        TrainerConfig(max_opts=1, opt_interval=0)
    with pytest.raises(ValueError, match=r"'gamma' must be <= 1\.0"):
        NStepStepProcessorConfig(gamma=1.5)
    with pytest.raises(ValueError, match=r"'lr' must be > 0"):
        DqnConfig(lr=0.0)


def test_invalid_yaml_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("max_opts: [1\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_yaml(TrainerConfig, path)
