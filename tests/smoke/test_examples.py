"""Every example runs end to end with a tiny budget: flags, YAML config, saves, TensorBoard files, eval."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest

from border_py import RolloutBufferConfig, load_yaml, save_yaml
from border_py.checkpoint import load_meta
from examples import (
    dqn_atari,
    dqn_cartpole,
    dqn_cartpole_async,
    iqn_atari,
    iqn_cartpole,
    ppo_cartpole,
    ppo_mujoco,
    ppo_pendulum,
    sac_mujoco,
    sac_pendulum,
    sac_pendulum_async,
)
from examples.harness import split_env_flag

EXAMPLES = [
    dqn_cartpole,
    iqn_cartpole,
    sac_pendulum,
    sac_mujoco,
    ppo_cartpole,
    ppo_pendulum,
    ppo_mujoco,
    dqn_atari,
    iqn_atari,
]


def _tiny(config: Any) -> Any:
    """The example's config with a budget of seconds: 40 opt steps, saves and evaluations every 20."""
    if isinstance(config.replay_buffer, RolloutBufferConfig):  # on-policy: one opt step per short rollout
        rollout = attrs.evolve(config.replay_buffer, n_steps=16)
        return attrs.evolve(
            config,
            trainer=attrs.evolve(
                config.trainer,
                opt_interval=rollout.rollout_size,
                eval_interval=20,
                save_interval=20,
                record_interval=10,
            ),
            replay_buffer=rollout,
            agent=attrs.evolve(config.agent, batch_size=16, n_epochs=1),
            evaluator=attrs.evolve(config.evaluator, n_episodes=1),
        )
    return attrs.evolve(
        config,
        trainer=attrs.evolve(
            config.trainer,
            warmup_period=100,
            eval_interval=20,
            save_interval=20,
            record_interval=10,
            keep_checkpoints=None,
        ),
        replay_buffer=attrs.evolve(config.replay_buffer, capacity=1_000),
        agent=attrs.evolve(config.agent, batch_size=32),
        evaluator=attrs.evolve(config.evaluator, n_episodes=1),
    )


@pytest.mark.smoke
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda m: m.__name__.split(".")[-1])
def test_example_trains_then_evaluates_with_a_yaml_config(
    example: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    config_path = tmp_path / "tiny.yaml"
    save_yaml(_tiny(example.Config()), config_path)
    model_dir = tmp_path / "run"

    argv = ["--train", "--eval", "--config", str(config_path), "--model-dir", str(model_dir)]
    assert example.main([*argv, "--max-opts", "40", "--seed", "3", "--no-progress"]) == 0

    names = sorted(p.name for p in model_dir.iterdir())
    assert names == [".lock", "20", "40", "best", "config.yaml", "tensorboard"]
    assert any((model_dir / "tensorboard").iterdir())
    saved = load_yaml(example.Config, model_dir / "config.yaml")
    assert (saved.trainer.max_opts, saved.trainer.seed, saved.trainer.model_dir) == (40, 3, str(model_dir))
    assert load_meta(model_dir / "40")["opt_steps"] == 40
    best_score = load_meta(model_dir / "best")["score"]
    assert f"mean return {best_score:.1f}" in capsys.readouterr().out

    # --eval alone reads model_dir/config.yaml and reproduces the score.
    assert example.main(["--eval", "--model-dir", str(model_dir)]) == 0
    assert f"mean return {best_score:.1f}" in capsys.readouterr().out


@pytest.mark.smoke
def test_sac_mujoco_defaults_run_halfcheetah() -> None:
    config = sac_mujoco.Config()
    assert config.env.name == "HalfCheetah-v5"
    env = config.env.build(seed=0)
    try:
        assert env.obs_dim == 17
        low, high = env.action_bounds
        assert (low.tolist(), high.tolist()) == ([-1.0] * 6, [1.0] * 6)
    finally:
        env.close()


@pytest.mark.smoke
@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("trainer:\n  max_opts: 10\n  max_opt: 3\n", r"unknown keys \['max_opt'\] @ .*bad\.yaml\.trainer"),
        # The discount is the step processor's (each transition carries its own): an agent has no gamma.
        ("agent:\n  gamma: 0.99\n", r"unknown keys \['gamma'\] @ .*bad\.yaml\.agent"),
    ],
)
def test_an_example_refuses_a_config_with_an_unknown_key(
    text: str, match: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert dqn_cartpole.main(["--train", "--config", str(path), "--model-dir", str(tmp_path / "run")]) == 2
    assert re.search(match, capsys.readouterr().err)
    assert not (tmp_path / "run").exists()


@pytest.mark.smoke
@pytest.mark.parametrize(
    "example", [*EXAMPLES, dqn_cartpole_async, sac_pendulum_async], ids=lambda m: m.__name__.split(".")[-1]
)
def test_shipped_yaml_config_equals_the_example_defaults(example: ModuleType) -> None:
    name = example.__name__.split(".")[-1]
    shipped = Path(__file__).parents[2] / "examples" / "configs" / f"{name}.yaml"
    assert load_yaml(example.Config, shipped) == example.Config()


@pytest.mark.smoke
@pytest.mark.parametrize("example", [dqn_atari, iqn_atari], ids=lambda m: m.__name__.split(".")[-1])
def test_atari_examples_take_any_game_with_env(
    example: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--env breakout`` picks Breakout; ``--env`` with a ``--config`` file, and an unknown game, are
    refused before anything is written."""
    assert split_env_flag(["--train", "--env", "breakout", "--seed", "1"]) == (
        "breakout",
        ["--train", "--seed", "1"],
    )
    assert split_env_flag(["--env=breakout"]) == ("breakout", [])
    model_dir = tmp_path / "run"
    tiny = _tiny(example.Config())
    config_path = tmp_path / "tiny.yaml"
    save_yaml(tiny, config_path)
    argv = ["--train", "--model-dir", str(model_dir), "--max-opts", "2", "--no-progress"]
    with pytest.raises(SystemExit):
        example.main([*argv, "--env", "breakout", "--config", str(config_path)])
    assert "--env picks the env of the built-in config" in capsys.readouterr().err
    assert example.main([*argv, "--env=no_such_game"]) == 2
    assert "no_such_game" in capsys.readouterr().err
    assert not model_dir.exists() or not (model_dir / "best").exists()
