"""Where episodes start, told to a policy with memory (`border_py.base.RecurrentPolicy`): by the sampler
for a single env and for each sub-env of a vector env, and by the evaluator at each episode; a policy
without memory is told nothing. The run layer refuses a recurrent agent with a replay buffer of shuffled
transitions, as mypy does (``tests/typing/recurrent_pairing.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from border_py.base import RecurrentPolicy
from border_py.config import ConfigError
from border_py.envs import GymVecEnvConfig
from border_py.evaluator import DefaultEvaluator
from border_py.run import TrainOptions, load_experiment_text, train, with_trainer
from border_py.testing import CountingEnv, ListBuffer, RecordingStepProcessor
from border_py.trainer.sampler import SyncSampler


class Remembering:
    """Acts 0 (in a vector env: lane ``i`` acts ``i % 2``) and records every `start_episodes` call, and
    how many steps came before it."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[bool]]] = []
        self.steps = 0

    def start_episodes(self, starts: Sequence[bool]) -> None:
        self.calls.append((self.steps, list(starts)))

    def sample(self, obs: Any) -> Any:
        self.steps += 1
        return np.array(0)

    def sample_batch(self, obs: Sequence[Any]) -> Sequence[Any]:
        self.steps += 1
        return [np.array(i % 2) for i in range(len(obs))]


def test_the_fake_is_a_recurrent_policy() -> None:
    assert isinstance(Remembering(), RecurrentPolicy)


def test_the_sampler_tells_a_single_env_policy_where_episodes_start() -> None:
    policy = Remembering()
    sampler = SyncSampler(CountingEnv(episode_length=3), RecordingStepProcessor())
    for _ in range(7):
        sampler.sample_and_push(policy, ListBuffer())
    # At the first reset, then after each episode of 3 steps.
    assert policy.calls == [(0, [True]), (3, [True]), (6, [True])]


def test_the_sampler_tells_which_sub_envs_start_an_episode() -> None:
    env = GymVecEnvConfig(name="CartPole-v1", num_envs=3).build(seed=0)
    policy = Remembering()
    processors: list[Any] = [RecordingStepProcessor() for _ in range(3)]  # a fake's items, CartPole's steps
    sampler = SyncSampler(env, processors)
    buffer = ListBuffer()
    for _ in range(60):
        sampler.sample_and_push(policy, buffer)
    env.close()
    assert policy.calls[0] == (0, [True, True, True])
    told = {steps - 1: flags for steps, flags in policy.calls[1:]}  # after the step that ended them
    # The buffer holds each step's items lane by lane: the lanes whose episode ended are those told.
    done = [
        [item.is_terminated or item.is_truncated for item in buffer.items[3 * t : 3 * t + 3]]
        for t in range(60)
    ]
    assert told == {t: flags for t, flags in enumerate(done) if any(flags)}
    assert any(not all(flags) for flags in told.values())  # lanes apart, not only all at once


def test_the_evaluator_starts_each_episode_of_a_recurrent_policy() -> None:
    policy = Remembering()
    _, lengths = DefaultEvaluator(CountingEnv(episode_length=4), n_episodes=3).episodes(policy)
    assert lengths == [4, 4, 4]
    assert policy.calls == [(0, [True]), (4, [True]), (8, [True])]


def test_the_run_layer_refuses_a_recurrent_agent_with_shuffled_transitions(tmp_path: Path) -> None:
    experiment = load_experiment_text(
        """
        env: {type: gym_vec, name: border_py/CartPoleNoVel-v1, num_envs: 2}
        step_processor: {type: simple}
        replay_buffer: {type: simple}
        agent: {type: recurrent_ppo}
        trainer: {max_opts: 1}
        """
    )
    with pytest.raises(ConfigError, match="RecurrentPpo learns from Rollout"):
        train(with_trainer(experiment, model_dir=tmp_path / "run"), TrainOptions(progress=False, quiet=True))
    assert not (tmp_path / "run").exists()
