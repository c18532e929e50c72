"""RolloutBuffer: one rollout in order, taken whole; its pairing with the trainer's schedule and env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from border_py import (
    BufferedRecorder,
    GymVecEnvConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    Trainer,
    TrainerConfig,
    Transition,
)
from border_py.agents import Ppo, PpoConfig
from border_py.base import Spaces


def _t(obs: float, next_obs: float, done: bool = False) -> Transition:
    return Transition(
        obs=np.full(2, obs, np.float32),
        act=np.array(int(obs) % 2),
        next_obs=np.full(2, next_obs, np.float32),
        reward=obs,
        is_terminated=done,
        is_truncated=False,
        discount=0.9,
    )


def test_a_rollout_comes_out_step_by_sub_env_and_empties_the_buffer() -> None:
    buffer = RolloutBufferConfig(n_steps=3, num_envs=2).build(0)
    # sub-env 0 counts 0, 1, 2; sub-env 1 counts 10, 11 and ends there, then starts at 20.
    for t0, t1 in [(_t(0, 1), _t(10, 11)), (_t(1, 2), _t(11, 12, done=True)), (_t(2, 3), _t(20, 21))]:
        buffer.push(t0)
        buffer.push(t1)
    rollout = buffer.batch(6)
    assert rollout.shape == (3, 2)
    assert rollout.reward.tolist() == [[0.0, 10.0], [1.0, 11.0], [2.0, 20.0]]
    assert rollout.is_terminated[:, 1].tolist() == [0.0, 1.0, 0.0]
    assert rollout.obs.shape == (3, 2, 2)
    assert len(buffer) == 0


def test_a_full_buffer_and_a_partial_rollout_are_refused() -> None:
    buffer = RolloutBufferConfig(n_steps=2).build(0)
    buffer.push(_t(0, 1))
    with pytest.raises(ValueError, match=r"a rollout is taken whole: the buffer holds 1 of 2"):
        buffer.batch(1)
    buffer.push(_t(1, 2))
    with pytest.raises(
        ValueError, match=r"the rollout buffer is full \(2 transitions\).*opt_interval must be"
    ):
        buffer.push(_t(2, 3))


def test_transitions_that_do_not_follow_on_are_refused_naming_the_step() -> None:
    buffer = RolloutBufferConfig(n_steps=3).build(0)
    for t in (_t(0, 1), _t(1, 2), _t(5, 6)):  # an n-step processor would skip like this
        buffer.push(t)
    with pytest.raises(ValueError, match=r"step 2 of sub-env 0 does not follow on from step 1"):
        buffer.batch(3)


def test_save_and_load_keep_an_unfinished_rollout(tmp_path: Path) -> None:
    buffer = RolloutBufferConfig(n_steps=3).build(0)
    buffer.push(_t(0, 1))
    buffer.save(tmp_path)
    loaded = RolloutBufferConfig(n_steps=3).build(0)
    loaded.load(tmp_path)
    loaded.push(_t(1, 2))
    loaded.push(_t(2, 3))
    assert loaded.batch(3).reward[:, 0].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match=r"rollout_buffer\.npz holds 1 transitions of a rollout of 3"):
        RolloutBufferConfig(n_steps=4).build(0).load(tmp_path)


def test_a_rollout_resumed_mid_way_marks_the_episodes_a_vector_env_restarted_as_truncated(
    tmp_path: Path,
) -> None:
    """Interrupted after step 1 of 3: on resume sub-env 0 starts a new episode (a vector env that cannot
    be rewound, as ale-py's), sub-env 1's replay follows on; only sub-env 0's last transition is cut."""
    buffer = RolloutBufferConfig(n_steps=3, num_envs=2).build(0)
    for t0, t1 in [(_t(0, 1), _t(10, 11)), (_t(1, 2), _t(11, 12))]:
        buffer.push(t0)
        buffer.push(t1)
    buffer.save(tmp_path)
    resumed = RolloutBufferConfig(n_steps=3, num_envs=2).build(0)
    resumed.load(tmp_path)
    resumed.push(_t(30, 31))  # a new episode: 30 does not follow on from 2
    resumed.push(_t(12, 13))
    rollout = resumed.batch(6)
    assert rollout.is_truncated.tolist() == [[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]
    assert rollout.reward.tolist() == [[0.0, 10.0], [1.0, 11.0], [30.0, 12.0]]


def test_only_the_step_after_a_resume_may_start_over_and_an_ended_episode_stays_as_it_ended(
    tmp_path: Path,
) -> None:
    buffer = RolloutBufferConfig(n_steps=4).build(0)
    buffer.push(_t(0, 1))
    buffer.push(_t(1, 2, done=True))
    buffer.save(tmp_path)
    resumed = RolloutBufferConfig(n_steps=4).build(0)
    resumed.load(tmp_path)
    resumed.push(_t(7, 8))  # after a termination a new episode starts anyway: nothing to mark
    resumed.push(_t(9, 10))  # a break one step later is still a mistake
    with pytest.raises(ValueError, match=r"step 3 of sub-env 0 does not follow on from step 2"):
        resumed.batch(4)


@pytest.mark.parametrize(
    ("trainer", "buffer", "match"),
    [
        (
            {"opt_interval": 32},
            {"n_steps": 8, "num_envs": 2},
            r"opt_interval \(32\) and warmup_period \(0\) must",
        ),
        (
            {"opt_interval": 16, "warmup_period": 5},
            {"n_steps": 8, "num_envs": 2},
            r"must be the rollout's size",
        ),
        (
            {"opt_interval": 24},
            {"n_steps": 8, "num_envs": 3},
            r"replay_buffer\.num_envs \(3\) differs .* \(2\)",
        ),
    ],
)
def test_the_trainer_refuses_a_rollout_that_does_not_fit_its_schedule_or_env(
    trainer: dict[str, Any], buffer: dict[str, Any], match: str
) -> None:
    config = TrainerConfig(max_opts=2, **trainer)
    t = Trainer(
        config,
        GymVecEnvConfig(name="CartPole-v1", num_envs=2),
        SimpleStepProcessorConfig(),
        RolloutBufferConfig(**buffer),
    )
    with pytest.raises(ValueError, match=match):
        t.train(Ppo(PpoConfig(batch_size=8), Spaces(obs_shape=(4,), n_actions=2), seed=0), BufferedRecorder())
