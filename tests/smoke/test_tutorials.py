"""The tutorials in examples/ run as their docstrings say: a user's own env, step processor, buffer and
agent (custom_env); a user's own agent named by import path in an experiment the CLI runs (custom_agent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from border_py.run.cli import main
from border_py.run.codec import load_experiment
from examples import custom_agent, custom_env


@pytest.mark.smoke
def test_the_custom_env_tutorial_learns_its_chain() -> None:
    assert custom_env.main() == 0  # its greedy policy walks straight to the end


@pytest.mark.smoke
def test_the_custom_agent_tutorial_trains_in_python_and_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert custom_agent.main(["1000"]) == 0
    assert "best greedy return" in capsys.readouterr().out
    config = tmp_path / "linear_q.yaml"
    config.write_text(
        "env: {name: CartPole-v1}\nstep_processor: {gamma: 0.99}\nreplay_buffer: {capacity: 10000}\n"
        "agent: {type: examples.custom_agent:LinearQConfig, lr: 0.01}\n"
        "trainer: {max_opts: 600, warmup_period: 200, eval_interval: 300, save_interval: 300}\n"
    )
    run = tmp_path / "run"
    flags = ["--model-dir", str(run), "--no-progress"]
    assert main(["train", "--config", str(config), *flags]) == 2  # a file names the module: not without trust
    assert "agent.type would import the module 'examples.custom_agent'" in capsys.readouterr().err
    assert not run.exists()
    assert main(["train", "--config", str(config), "--trust-code", *flags]) == 0
    assert isinstance(load_experiment(run / "config.yaml", trust_code=True).agent, custom_agent.LinearQConfig)
    assert main(["eval", "--model-dir", str(run), "--trust-code"]) == 0
    resume = ["resume", "--model-dir", str(run), "--set", "trainer.max_opts=900", "--no-progress"]
    assert main(resume) == 2
    assert main([*resume, "--trust-code"]) == 0
