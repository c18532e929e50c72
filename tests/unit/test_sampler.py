"""SyncSampler: one env step per call, items pushed, fps measured."""

from __future__ import annotations

import pickle
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from border_py import GymEnvConfig, NStepStepProcessor, ResumeWarning, SyncSampler, Transition
from border_py.testing import ConstantPolicy, CountingEnv, ListBuffer, RecordingStepProcessor


def test_each_call_pushes_one_item_across_episode_boundaries() -> None:
    env = CountingEnv(episode_length=3)
    sampler = SyncSampler(env, RecordingStepProcessor())
    buffer = ListBuffer()
    records = [r for _ in range(7) for r in sampler.sample_and_push(ConstantPolicy(1), buffer)]
    assert [(i.obs, i.next_obs) for i in buffer.items] == [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (6, 7),
    ]
    assert [i.is_terminated for i in buffer.items] == [False, False, True, False, False, True, False]
    assert [dict(r) for r in records] == [{"env/episode_return": 3.0, "env/episode_length": 3.0}] * 2
    assert env.n_resets == 3  # the first call, then one automatic reset per ended episode


def test_take_fps_counts_steps_since_the_last_take() -> None:
    sampler = SyncSampler(CountingEnv(), RecordingStepProcessor())
    buffer = ListBuffer()
    assert sampler.take_fps() == 0.0
    for _ in range(50):
        sampler.sample_and_push(ConstantPolicy(0), buffer)
    fps = sampler.take_fps()
    assert fps > 0.0
    assert sampler.take_fps() == 0.0


class _SlowPolicy:
    """Takes ``delay`` seconds to choose an action."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def sample(self, obs: Any) -> int:
        time.sleep(self.delay)
        return 0


def test_take_times_splits_sampling_time_between_policy_and_env() -> None:
    sampler = SyncSampler(CountingEnv(), RecordingStepProcessor())
    buffer = ListBuffer()
    for _ in range(5):
        sampler.sample_and_push(_SlowPolicy(0.01), buffer)
    times = sampler.take_times()
    assert times["time/act_seconds"] >= 0.05  # five sleeps of 10 ms in the policy
    assert 0.0 <= times["time/env_seconds"] < times["time/act_seconds"]
    assert times["time/fps"] == pytest.approx(5 / (times["time/act_seconds"] + times["time/env_seconds"]))
    assert sampler.take_times() == {"time/fps": 0.0, "time/act_seconds": 0.0, "time/env_seconds": 0.0}


class _ScriptedPolicy:
    """Plays a fixed list of actions, one per call, from position ``i``."""

    def __init__(self, actions: list[npt.NDArray[Any]], i: int = 0) -> None:
        self.actions, self.i = actions, i

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
        self.i += 1
        return self.actions[self.i - 1]


class _Items:
    def __init__(self) -> None:
        self.items: list[tuple[Any, ...]] = []

    def push(self, t: Transition) -> None:
        self.items.append(
            (t.obs.tolist(), t.act.tolist(), t.next_obs.tolist(), t.reward, t.discount, t.is_terminated)
        )

    def __len__(self) -> int:
        return len(self.items)


@pytest.mark.parametrize(
    ("name", "steps", "at"),
    [
        ("CartPole-v1", 120, 7),
        ("CartPole-v1", 120, 71),
        ("Pendulum-v1", 260, 230),
        ("HalfCheetah-v5", 60, 33),
    ],
)
def test_a_loaded_state_replays_the_unfinished_episode_exactly(name: str, steps: int, at: int) -> None:
    """The env and an n-step processor's pending rewards come back: the resumed sampler emits exactly what
    the uninterrupted one does, in the first episode (seeded reset) and in a later one (RNG state)."""
    space = GymEnvConfig(name=name).build(0).action_space
    space.seed(1)
    actions = [np.asarray(space.sample()) for _ in range(steps)]

    def sampler() -> SyncSampler[Any, Any, Transition]:
        return SyncSampler(GymEnvConfig(name=name).build(seed=4), NStepStepProcessor(n_steps=3, gamma=0.9))

    whole, whole_items = sampler(), _Items()
    policy = _ScriptedPolicy(actions)
    for _ in range(steps):
        whole.sample_and_push(policy, whole_items)

    first, first_items = sampler(), _Items()
    policy = _ScriptedPolicy(actions)
    for _ in range(at):
        first.sample_and_push(policy, first_items)
    state = pickle.loads(pickle.dumps(first.state_dict()))  # as through a checkpoint file
    assert len(state["actions"]) > 0

    resumed, resumed_items = sampler(), _Items()
    resumed.load_state_dict(state)
    policy = _ScriptedPolicy(actions, i=at)
    for _ in range(steps - at):
        resumed.sample_and_push(policy, resumed_items)
    assert first_items.items + resumed_items.items == whole_items.items


def test_a_replay_that_diverges_warns_and_starts_a_new_episode() -> None:
    class _Forgetful(CountingEnv):
        def restore_episode_start(self, state: int) -> None:
            """Forgets to rewind: the replayed episode cannot match."""

    first = SyncSampler(CountingEnv(episode_length=10), RecordingStepProcessor())
    for _ in range(13):
        first.sample_and_push(ConstantPolicy(0), ListBuffer())
    env = _Forgetful(episode_length=10)
    resumed = SyncSampler(env, RecordingStepProcessor())
    with pytest.warns(ResumeWarning, match="replaying the 3 actions .* did not reproduce it"):
        resumed.load_state_dict(first.state_dict())
    buffer = ListBuffer()
    resumed.sample_and_push(ConstantPolicy(0), buffer)
    assert env.n_resets == 2  # the failed replay's reset, then the new episode's
    assert (buffer.items[0].obs, buffer.items[0].next_obs) == (3, 4)
