"""YAML round trips and clear config errors."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from border_py import (
    ConfigError,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
    load_yaml,
    save_yaml,
)
from border_py.agents import DqnConfig, EpsilonGreedyConfig, SoftmaxConfig
from border_py.config import MAX_EPISODE_STEPS, MAX_YAML_DEPTH, parse_yaml
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
        ("eval_interval: 3\n", r"set max_opts or max_env_steps"),
        ("max_opts: 10\nstop_score: .inf\n", r"expected a finite number, got inf .*stop_score"),
        ("max_opts: 10\nstop_score: 5\n", r"stop_score is set but eval_interval is None"),
        ("- 1\n- 2\n", r"expected a mapping"),
        ("max_opts: 10\nkeep_checkpoints: 0\n", r"'keep_checkpoints' must be > 0: 0"),
        (
            "max_opts: 10\ncheckpoint_buffer: 'yes'\n",
            r"expected true or false, got 'yes' .*checkpoint_buffer",
        ),
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


_pos = st.integers(1, 10**9)
_unit_float = st.floats(0.0, 1.0, allow_nan=False)
_explorers = st.one_of(
    st.builds(
        EpsilonGreedyConfig, eps_start=_unit_float, eps_final=_unit_float, final_step=st.integers(0, 10**9)
    ),
    st.builds(SoftmaxConfig, temperature=st.floats(1e-6, 1e6)),
)


@st.composite
def _trainer_configs(draw: st.DrawFn) -> TrainerConfig:
    model_dir = draw(st.none() | st.text(min_size=1, max_size=20))
    return TrainerConfig(
        max_opts=draw(_pos),
        opt_interval=draw(_pos),
        warmup_period=draw(st.integers(0, 10**9)),
        eval_interval=draw(st.none() | _pos),
        record_interval=draw(_pos),
        save_interval=None if model_dir is None else draw(st.none() | _pos),
        model_dir=model_dir,
        seed=draw(st.integers(0, 2**32 - 1)),
        checkpoint_buffer=draw(st.booleans()),
        keep_checkpoints=draw(st.none() | _pos),
    )


_configs = st.one_of(
    _trainer_configs(),
    st.builds(
        SimpleReplayBufferConfig,
        capacity=_pos,
        per=st.none()
        | st.builds(
            PerConfig, alpha=st.floats(0.0, 10.0), beta_0=st.floats(1e-3, 1.0), eps=st.floats(1e-9, 1.0)
        ),
    ),
    st.builds(
        DqnConfig,
        hidden=st.lists(st.integers(1, 4096), min_size=1, max_size=4).map(tuple),
        lr=st.floats(1e-9, 10.0),
        tau=st.floats(1e-6, 1.0),
        loss=st.sampled_from(["mse", "huber"]),
        max_grad_norm=st.none() | st.floats(1e-6, 1e6),
        explorer=_explorers,
        double_dqn=st.booleans(),
    ),
    st.builds(NStepStepProcessorConfig, n_steps=st.integers(1, 100), gamma=_unit_float),
    st.builds(
        GymEnvConfig,
        name=st.text(min_size=1, max_size=30),
        max_episode_steps=st.none() | st.integers(1, MAX_EPISODE_STEPS),
        kwargs=st.dictionaries(
            st.text(max_size=10), st.integers() | st.text(max_size=10) | st.booleans(), max_size=3
        ),
    ),
)


@settings(max_examples=200, deadline=None)
@given(config=_configs)
def test_any_valid_config_survives_a_yaml_round_trip(config: object) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.yaml"
        save_yaml(config, path)
        assert load_yaml(type(config), path) == config


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (BOMB, r"f\.yaml: not valid YAML: the alias \*a is refused: write the value out"),
        ("[" * 100_000 + "]" * 100_000, r"f\.yaml: not valid YAML: nested deeper than 64 levels"),
        ("{a: " * 100_000 + "1" + "}" * 100_000, r"nested deeper than 64 levels"),
        ("a: 1\na: 2\n", r"the key 'a' is given twice"),
        # Found by tests/fuzz: sorting the unknown keys 1 and 'a' (or a key None) was a TypeError traceback,
        # and a key that is a list one too.
        ("1: x\na: y\n", r"f\.yaml: not valid YAML: the key 1 is not text: keys are names .* line 1"),
        ("env: {name: CartPole-v1, null: 3}", r"the key None is not text"),
        ("? [a]\n: 1\n", r"the key \[\] is not text"),
    ],
)
def test_hostile_yaml_is_refused_in_one_line_before_it_expands(text: str, match: str) -> None:
    """An alias bomb (a few hundred bytes that would expand to 4 ** 9 * 9 strings) and 100,000 levels of
    nesting (a RecursionError) are refused naming the file."""
    with pytest.raises(ConfigError, match=match) as info:
        parse_yaml(text, "f.yaml")
    assert "\n" not in str(info.value)


def test_a_config_may_nest_as_deep_as_the_limit() -> None:
    depth = MAX_YAML_DEPTH
    assert parse_yaml("[" * depth + "]" * depth, "f.yaml") is not None


def test_a_timestamp_pyyaml_cannot_read_stays_text_rather_than_crash() -> None:
    """Found by tests/fuzz: PyYAML's date constructor raised AttributeError on `!!timestamp 2001-01-01env`
    (a traceback through every YAML a user or a model directory hands border_py)."""
    from border_py.config import parse_yaml

    assert parse_yaml("!!timestamp 2001-01-01env:\n  x: 1", "f.yaml") == {"2001-01-01env": {"x": 1}}
    assert parse_yaml("when: 2001-01-01", "f.yaml") == {"when": "2001-01-01"}
