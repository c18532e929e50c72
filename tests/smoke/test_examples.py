"""Every example runs end to end with a tiny budget: flags, YAML config, saves, TensorBoard files, eval."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from border_py import ConfigError, load_yaml, save_yaml
from border_py.checkpoint import load_meta
from examples import dqn_cartpole


@pytest.mark.smoke
def test_dqn_cartpole_train_then_eval_with_a_yaml_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = dqn_cartpole.Config()
    tiny = attrs.evolve(
        config,
        trainer=attrs.evolve(
            config.trainer, warmup_period=100, eval_interval=20, save_interval=20, record_interval=10
        ),
        replay_buffer=attrs.evolve(config.replay_buffer, capacity=1_000),
    )
    config_path = tmp_path / "tiny.yaml"
    save_yaml(tiny, config_path)
    model_dir = tmp_path / "run"

    argv = [
        "--train",
        "--eval",
        "--config",
        str(config_path),
        "--model-dir",
        str(model_dir),
        "--max-opts",
        "40",
    ]
    assert dqn_cartpole.main([*argv, "--seed", "3", "--no-progress"]) == 0

    assert sorted(p.name for p in model_dir.iterdir()) == ["20", "40", "best", "config.yaml", "tensorboard"]
    assert any((model_dir / "tensorboard").iterdir())
    saved = load_yaml(dqn_cartpole.Config, model_dir / "config.yaml")
    assert (saved.trainer.max_opts, saved.trainer.seed, saved.trainer.model_dir) == (40, 3, str(model_dir))
    assert load_meta(model_dir / "40")["opt_steps"] == 40
    best_score = load_meta(model_dir / "best")["score"]
    out = capsys.readouterr().out
    assert f"mean return {best_score:.1f}" in out

    # --eval alone reads model_dir/config.yaml and reproduces the score.
    assert dqn_cartpole.main(["--eval", "--model-dir", str(model_dir)]) == 0
    assert f"mean return {best_score:.1f}" in capsys.readouterr().out


@pytest.mark.smoke
def test_dqn_cartpole_refuses_a_config_with_an_unknown_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("trainer:\n  max_opts: 10\n  max_opt: 3\n")
    with pytest.raises(ConfigError, match=r"unknown keys \['max_opt'\] @ .*bad\.yaml\.trainer"):
        dqn_cartpole.main(["--train", "--config", str(path)])


@pytest.mark.smoke
def test_shipped_yaml_config_equals_the_example_defaults() -> None:
    shipped = Path(__file__).parents[2] / "examples" / "configs" / "dqn_cartpole.yaml"
    assert load_yaml(dqn_cartpole.Config, shipped) == dqn_cartpole.Config()
