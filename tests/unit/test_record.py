"""Records and their aggregation."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from border_py import Record, aggregate


def test_scalars_become_floats_and_zero_d_arrays_scalars() -> None:
    r = Record({"a": 3, "b": np.float32(0.5), "c": np.array(2.0)})
    assert r == {"a": 3.0, "b": 0.5, "c": 2.0}
    assert all(isinstance(v, float) for v in r.values())


def test_merge_right_wins_and_keeps_both_sides() -> None:
    merged = Record({"x": 1.0, "y": 2.0}).merge(Record({"y": 5.0, "z": 6.0}))
    assert dict(merged) == {"x": 1.0, "y": 5.0, "z": 6.0}


@pytest.mark.parametrize(
    ("value", "error"),
    [(True, TypeError), (np.zeros((1, 1, 1, 1)), ValueError), (object(), TypeError), ([1.0], TypeError)],
)
def test_invalid_values_are_refused_naming_the_key(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="'bad'"):
        Record({"bad": value})


def test_get_scalar_refuses_text() -> None:
    with pytest.raises(TypeError, match="'note'"):
        Record({"note": "hello"}).get_scalar("note")


def test_aggregate_scalar_stored_several_times_gives_mean_min_max_median() -> None:
    out = aggregate([Record({"loss": v}) for v in (4.0, 1.0, 2.0, 9.0)])
    assert out["loss"] == pytest.approx(4.0)
    assert out["loss_min"] == 1.0
    assert out["loss_max"] == 9.0
    assert out["loss_median"] == pytest.approx(3.0)


def test_aggregate_scalar_stored_once_is_kept_as_is() -> None:
    out = aggregate([Record({"env_steps": 100.0}), Record({"loss": 1.0}), Record({"loss": 3.0})])
    assert out["env_steps"] == 100.0
    assert "env_steps_min" not in out
    assert out["loss"] == 2.0


def test_aggregate_non_scalars_keep_the_last_value() -> None:
    t0, t1 = datetime.datetime(2026, 1, 1), datetime.datetime(2026, 1, 2)
    out = aggregate(
        [
            Record({"hist": np.ones(3), "when": t0, "note": "a"}),
            Record({"hist": np.zeros(3), "when": t1, "note": "b"}),
        ]
    )
    hist = out["hist"]
    assert isinstance(hist, np.ndarray)
    assert np.array_equal(hist, np.zeros(3))
    assert out["when"] == t1
    assert out["note"] == "b"


def test_aggregate_keeps_nan_visible() -> None:
    out = aggregate([Record({"loss": 1.0}), Record({"loss": float("nan")})])
    assert np.isnan(out.get_scalar("loss"))


def test_aggregate_of_nothing_is_empty() -> None:
    assert len(aggregate([])) == 0


_finite = st.floats(-1e9, 1e9, allow_nan=False)


@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c/d"]), _finite, max_size=3), max_size=8))
def test_aggregate_keeps_every_scalar_as_count_mean_min_max_median(stored: list[dict[str, float]]) -> None:
    out = aggregate(Record(d) for d in stored)
    values: dict[str, list[float]] = {}
    for d in stored:
        for k, v in d.items():
            values.setdefault(k, []).append(v)
    expected_keys = set()
    for key, vs in values.items():
        expected_keys.add(key)
        if len(vs) == 1:
            assert out[key] == vs[0]
            continue
        expected_keys |= {f"{key}_min", f"{key}_max", f"{key}_median"}
        assert out[key] == pytest.approx(float(np.mean(vs)), rel=1e-9, abs=1e-6)
        assert (out[f"{key}_min"], out[f"{key}_max"]) == (min(vs), max(vs))
        assert out[f"{key}_median"] == pytest.approx(float(np.median(vs)), rel=1e-12, abs=1e-9)
        assert min(vs) <= out.get_scalar(key) <= max(vs)
    assert set(out.keys()) == expected_keys
