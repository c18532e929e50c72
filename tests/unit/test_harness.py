"""The example harness: flags, config resolution, and every check made before anything is written."""

from __future__ import annotations

import attrs
import pytest
import torch

from border_py import TrainerConfig, configure_torch
from examples import dqn_cartpole
from examples.harness import run_example


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
    with pytest.raises(SystemExit):
        run_example(
            ["--resume", "--overwrite", "--model-dir", "x"],
            None,
            no_dir,
            dqn_cartpole.train,
            dqn_cartpole.evaluate,
        )
    assert "give one" in capsys.readouterr().err


def test_configure_torch_sets_the_threads_and_flushes_denormals() -> None:
    """tests/conftest.py restores both settings afterwards."""
    torch.set_flush_denormal(False)
    denormal = torch.tensor([1e-39], dtype=torch.float32)  # below float32's smallest normal, 1.2e-38
    assert float(denormal * 1.0) > 0.0
    configure_torch(1)
    assert torch.get_num_threads() == 1
    assert float(denormal * 1.0) == 0.0
    with pytest.raises(ValueError, match="threads must be >= 1"):
        configure_torch(0)
