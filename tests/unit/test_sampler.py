"""SyncSampler: one env step per call, items pushed, fps measured."""

from __future__ import annotations

from border_py import SyncSampler
from border_py.testing import ConstantPolicy, CountingEnv, ListBuffer, RecordingStepProcessor


def test_each_call_pushes_one_item_across_episode_boundaries() -> None:
    env = CountingEnv(episode_length=3)
    sampler = SyncSampler(env, RecordingStepProcessor())
    buffer = ListBuffer()
    records = [sampler.sample_and_push(ConstantPolicy(1), buffer) for _ in range(7)]
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
    assert [dict(r) for r in records if r] == [{"env/episode_return": 3.0, "env/episode_length": 3.0}] * 2
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
