"""Goal relabelling through the run layer: the zoo's ``her`` variant, ``--set step_processor.type=her`` with
``env.kwargs.reward_type=sparse``, and the one-line refusal of an env that is not goal-conditioned."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py import GymEnvConfig, HerStepProcessorConfig
from border_py.config import ConfigError
from border_py.run import Experiment, codec, zoo
from border_py.run.cli import main
from tests.run.test_reliability import one_error_line

ENV = "border_py/PointGoal-v0"


def test_set_type_keeps_the_fields_the_new_config_takes_and_drops_the_others() -> None:
    data = zoo.entry("sac", ENV).data
    assert data["step_processor"] == {"type": "nstep", "n_steps": 1, "gamma": 0.99}
    changed = codec.apply_overrides(data, ["step_processor.type=her", "step_processor.n_sampled_goal=2"])
    assert changed["step_processor"] == {"type": "her", "gamma": 0.99, "n_sampled_goal": 2}
    assert codec.apply_overrides(data, ["step_processor.type=nstep"])["step_processor"]["n_steps"] == 1
    with pytest.raises(ConfigError, match=r"unknown key 'step_processor\.n_steps'"):
        codec.apply_overrides(data, ["step_processor.type=her", "step_processor.n_steps=3"])


def test_set_fills_an_env_kwargs_left_at_its_default_key_by_key() -> None:
    data = zoo.entry("sac", ENV).data
    assert "kwargs" not in data["env"]
    changed = codec.apply_overrides(data, ["env.kwargs.reward_type=sparse", "step_processor.type=her"])
    assert changed["env"]["kwargs"] == {"reward_type": "sparse"}
    experiment = codec.experiment_from_dict(changed, "test")
    assert isinstance(experiment, Experiment)
    assert isinstance(experiment.env, GymEnvConfig)
    assert experiment.step_processor == HerStepProcessorConfig()
    assert experiment.env.kwargs == {"reward_type": "sparse"}
    with pytest.raises(ConfigError, match=r"env\.name is not a section"):
        codec.apply_overrides(data, ["env.name.x=1"])
    with pytest.raises(ConfigError, match=r"agent\.actor_hidden is not a section"):
        codec.apply_overrides(data, ["agent.actor_hidden.x=1"])


def test_the_her_variant_is_the_sparse_variant_with_relabelling() -> None:
    her = zoo.experiment("sac", ENV, variant="her")
    sparse = zoo.experiment("sac", ENV, variant="sparse")
    assert isinstance(her, Experiment)
    assert isinstance(sparse.env, GymEnvConfig)
    assert her.step_processor == HerStepProcessorConfig(strategy="future", n_sampled_goal=4, gamma=0.99)
    assert her.env == sparse.env
    assert sparse.env.kwargs == {"reward_type": "sparse"}


def test_her_on_an_env_without_goals_is_one_line_and_exit_2_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    argv = ["train", "sac", "--env", "Pendulum-v1", "--model-dir", str(run), "--no-progress"]
    assert main([*argv, "--set", "step_processor.type=her"]) == 2
    line = one_error_line(capsys)
    assert "step_processor: HerStepProcessor needs a goal-conditioned env, but Pendulum-v1 has no " in line
    assert line.endswith("and no compute_reward")
    assert not run.exists()
