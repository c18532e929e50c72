"""``python -m border_py.plot``: event files in, grouped learning curves out as a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
pytest.importorskip("tensorboard", reason="the plot extra (tensorboard) is not installed")

import matplotlib.image

from border_py import Record, save_yaml
from border_py.plot import (
    Curve,
    bootstrap_ci,
    find_runs,
    group_runs,
    interquartile_mean,
    legend_label,
    main,
    read_curve,
    summarize,
)
from border_py.recorders import TensorboardRecorder
from border_py.run import experiment_to_dict, zoo
from border_py.run.codec import with_defaults


def _run(
    model_dir: Path,
    seed: int,
    lr: float,
    returns: list[float],
    env_per_opt: int = 4,
    config: dict[str, Any] | None = None,
) -> Path:
    """A run as the examples leave it: config.yaml and event files under model_dir/tensorboard."""
    model_dir.mkdir(parents=True)
    written = config or {"trainer": {"seed": seed, "model_dir": str(model_dir)}, "agent": {"lr": lr}}
    save_yaml(written, model_dir / "config.yaml")
    recorder = TensorboardRecorder(model_dir / "tensorboard")
    for i, value in enumerate(returns, start=1):
        opt_steps = 100 * i
        recorder.store(Record({"eval/episode_return": value}), opt_steps)
        counters = Record({"env_steps": float(opt_steps * env_per_opt), "opt_steps": float(opt_steps)})
        recorder.store(counters, opt_steps)
        recorder.flush(opt_steps)
    recorder.close()
    return model_dir


def test_the_figure_of_three_seeds_is_a_png_of_the_set_size_with_something_drawn(tmp_path: Path) -> None:
    for seed in range(3):
        _run(tmp_path / "dqn" / f"seed{seed}", seed, 1e-3, [10.0 * seed + i for i in range(5)])
    out = tmp_path / "fig" / "curve.png"
    assert main([str(tmp_path / "dqn"), "--out", str(out), "--x", "env_steps"]) == 0
    image = matplotlib.image.imread(out)
    assert image.shape[:2] == (400, 640)  # figsize 6.4 x 4.0 inches at 100 dpi
    rgb = image[..., :3]
    assert rgb.std() > 0.05  # not a blank canvas
    # The band: some pixels are neither white, grey nor the line's pure colour.
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 50


def test_seeds_of_one_config_are_one_group_and_another_config_is_another(tmp_path: Path) -> None:
    _run(tmp_path / "a" / "seed0", 0, 1e-3, [1.0, 2.0])
    _run(tmp_path / "a" / "seed1", 1, 1e-3, [3.0, 4.0])
    _run(tmp_path / "b" / "seed0", 0, 3e-4, [5.0, 6.0])
    groups = group_runs(find_runs([tmp_path]), "eval/episode_return")
    assert sorted((g.label, len(g.curves)) for g in groups) == [("a", 2), ("seed0", 1)]
    a = next(g for g in groups if g.label == "a")
    s = summarize(a.curves)
    assert s.x.tolist() == [100.0, 200.0]
    assert s.centre.tolist() == [2.0, 3.0]
    assert (s.low.tolist(), s.high.tolist()) == ([1.0, 2.0], [3.0, 4.0])


def test_a_run_written_before_a_field_existed_groups_with_one_written_after(tmp_path: Path) -> None:
    """The MuJoCo campaign's seed 0 was written before ``evaluator.envs`` existed, its seeds 1 and 2
    after: one config, so one group."""
    for seed in (0, 1):
        data = experiment_to_dict(zoo.experiment("dqn", "CartPole-v1", str(tmp_path / "dqn" / f"seed{seed}")))
        data["trainer"]["seed"] = seed
        if seed == 0:
            del data["evaluator"]["envs"]
        _run(tmp_path / "dqn" / f"seed{seed}", seed, 1e-3, [1.0, 2.0], config=data)
    groups = group_runs(find_runs([tmp_path]), "eval/episode_return", with_defaults)
    assert [(g.label, len(g.curves)) for g in groups] == [("dqn", 2)]
    as_written = group_runs(find_runs([tmp_path]), "eval/episode_return")  # below the run layer: no defaults
    assert sorted(len(g.curves) for g in as_written) == [1, 1]


def test_env_steps_come_from_the_recorded_counter(tmp_path: Path) -> None:
    curve = read_curve(_run(tmp_path / "r", 0, 1e-3, [1.0, 2.0, 3.0], env_per_opt=8), "eval/episode_return")
    assert curve.opt_steps.tolist() == [100.0, 200.0, 300.0]
    assert curve.env_steps.tolist() == [800.0, 1600.0, 2400.0]
    assert curve.values.tolist() == [1.0, 2.0, 3.0]


def test_a_resumed_runs_purged_steps_are_read_once(tmp_path: Path) -> None:
    run = _run(tmp_path / "r", 0, 1e-3, [1.0, 2.0, 3.0])  # steps 100, 200, 300; checkpoint at 200
    recorder = TensorboardRecorder(run / "tensorboard", purge_step=201)
    recorder.store(Record({"eval/episode_return": 30.0}), 300)
    recorder.flush(300)
    recorder.close()
    curve = read_curve(run, "eval/episode_return")
    assert curve.opt_steps.tolist() == [100.0, 200.0, 300.0]
    assert curve.values.tolist() == [1.0, 2.0, 30.0]


def test_a_run_nested_in_another_is_read_apart(tmp_path: Path) -> None:
    """AWAC's fine-tuning writes its own run (config and events) into ``model_dir/finetune``."""
    outer = _run(tmp_path / "r", 0, 1e-3, [1.0, 2.0, 3.0])
    inner = _run(outer / "finetune", 0, 1e-3, [-5.0, -6.0, -7.0, -8.0], env_per_opt=1)  # steps 100-400
    curve = read_curve(outer, "eval/episode_return")
    assert curve.values.tolist() == [1.0, 2.0, 3.0]
    assert curve.env_steps.tolist() == [400.0, 800.0, 1200.0]
    assert read_curve(inner, "eval/episode_return").values.tolist() == [-5.0, -6.0, -7.0, -8.0]
    assert find_runs([outer]) == [outer]


def test_the_interquartile_mean_and_its_bootstrap_interval_by_hand() -> None:
    values = np.array([[1.0], [2.0], [3.0], [100.0]])
    assert interquartile_mean(values).tolist() == [2.5]  # the middle two of four
    assert interquartile_mean(np.array([[1.0], [2.0], [6.0]])).tolist() == [3.0]  # 3 seeds: the plain mean
    low, high = bootstrap_ci(np.array([[1.0], [1.0], [1.0]]))
    assert (low.tolist(), high.tolist()) == ([1.0], [1.0])
    low, high = bootstrap_ci(values)
    assert 1.0 <= low[0] < 2.5 < high[0] <= 100.0


@pytest.mark.parametrize("n_seeds", [2, 3, 4, 5, 8])
def test_the_iqm_legend_names_the_band_drawn_which_is_min_max_below_five_seeds(n_seeds: int) -> None:
    """Below 5 seeds a bootstrap over seeds spans the min-max range, so that is what --band iqm draws and
    what its legend says; from 5 seeds the band is the CI, inside the range."""
    values = np.random.default_rng(n_seeds).normal(size=(n_seeds, 30))
    steps = np.arange(1.0, 31.0)
    curves = [Curve(Path(f"seed{i}"), steps, steps, row) for i, row in enumerate(values)]
    s = summarize(curves, band="iqm")
    low, high = bootstrap_ci(values)
    label = legend_label("g", n_seeds, "iqm")
    in_range = (values.min(axis=0) <= s.low) & (s.high <= values.max(axis=0))
    assert in_range.all()
    if n_seeds < 5:
        drawn = np.stack([s.low, s.high])
        np.testing.assert_array_equal(drawn, np.stack([values.min(axis=0), values.max(axis=0)]))
        np.testing.assert_allclose(np.stack([low, high]), drawn, rtol=0, atol=1e-12)  # what the CI is
        assert "band: min-max" in label
        assert "bootstrap CI needs 5 seeds" in label
    else:
        assert ((s.high - s.low) < values.max(axis=0) - values.min(axis=0)).any()
        assert label.endswith("band: 95% bootstrap CI)")
    assert label.startswith(f"g ({'IQM' if n_seeds >= 4 else 'mean'} of {n_seeds} seeds")


def test_a_missing_key_or_directory_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path / "r", 0, 1e-3, [1.0])
    assert main([str(run), "--key", "eval/nope", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "no scalar 'eval/nope'" in err
    assert "eval/episode_return" in err
    assert main([str(tmp_path / "absent"), "--out", str(tmp_path / "x.png")]) == 2
    assert "no such run directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), "--out", str(tmp_path / "x.png")]) == 2
    assert "no TensorBoard event files" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
