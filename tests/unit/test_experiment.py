"""The example helpers: run directory setup and the flags' config resolution."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
import torch

from border_py import TrainerConfig, load_yaml
from border_py.experiment import configure_torch, prepare_run, run_example, with_trainer
from examples import dqn_cartpole


def test_prepare_run_writes_the_config_and_refuses_no_model_dir(tmp_path: Path) -> None:
    config = dqn_cartpole.Config()
    run = with_trainer(config, model_dir=str(tmp_path / "a" / "b"))
    assert prepare_run(run) == tmp_path / "a" / "b"
    assert load_yaml(dqn_cartpole.Config, tmp_path / "a" / "b" / "config.yaml") == run
    with pytest.raises(ValueError, match="model_dir is None"):
        prepare_run(attrs.evolve(config, trainer=TrainerConfig(max_opts=1, opt_interval=1)))


def test_eval_alone_without_a_model_dir_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    config = dqn_cartpole.Config()
    no_dir = attrs.evolve(config, trainer=TrainerConfig(max_opts=1, opt_interval=1))

    with pytest.raises(SystemExit):
        run_example(["--eval"], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "--eval needs --model-dir" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_example([], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "give --train, --resume, --eval or a combination" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_example(["--resume"], None, no_dir, dqn_cartpole.train, dqn_cartpole.evaluate)
    assert "--resume needs --model-dir" in capsys.readouterr().err


def test_configure_torch_sets_the_threads_and_flushes_denormals() -> None:
    """tests/conftest.py restores both settings afterwards."""
    torch.set_flush_denormal(False)
    denormal = torch.tensor([1e-39], dtype=torch.float32)  # below float32's smallest normal, 1.2e-38
    assert float(denormal * 1.0) > 0.0
    configure_torch(1)
    assert torch.get_num_threads() == 1
    assert float(denormal * 1.0) == 0.0
