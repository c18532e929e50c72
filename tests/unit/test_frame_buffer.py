"""FrameStackStepProcessor + FrameReplayBuffer against a naive reference: full obs and next_obs stacks from
NStepStepProcessor, stored per transition (border's layout)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from border_py import (
    FrameReplayBuffer,
    FrameReplayBufferConfig,
    FrameStackStepProcessor,
    FrameTransition,
    NStepStepProcessor,
    PerConfig,
    Step,
    Transition,
)

Frames = npt.NDArray[np.uint8]


class FrameStream:
    """Zero-padded frame stacks of unique 2x2 frames (frame ``t`` holds ``t`` in base 256), as an env that
    stacks like ale-py's vector env emits them."""

    def __init__(self, stack: int, env_id: int = 0, start: int = 0) -> None:
        self.stack, self.t, self.env_id = stack, start, env_id
        self.obs = self._first()

    def _frame(self) -> Frames:
        self.t += 1
        return np.array([[self.t % 256, self.t // 256], [1, 2]], np.uint8)

    def _first(self) -> Frames:
        obs = np.zeros((self.stack, 2, 2), np.uint8)
        obs[-1] = self._frame()
        return obs

    def step(self, act: int, reward: float, terminated: bool, truncated: bool) -> Step[Frames, Any]:
        obs = np.concatenate([self.obs[1:], self._frame()[None]])
        init = self._first() if terminated or truncated else None
        self.obs = obs if init is None else init
        return Step(
            act=np.array(act),
            obs=obs,
            reward=reward,
            is_terminated=terminated,
            is_truncated=truncated,
            info={"env_id": self.env_id},
            init_obs=init,
        )


# An episode: its length and how it ends (0 runs on unfinished, 1 terminated, 2 truncated).
_episodes = st.lists(st.tuples(st.integers(1, 12), st.integers(0, 2)), min_size=1, max_size=8)


def _run(
    episodes: list[tuple[int, int]], n: int, stack: int, capacity: int, per: bool
) -> tuple[Any, list[Transition]]:
    stream = FrameStream(stack)
    frame_proc, naive_proc = FrameStackStepProcessor(n, 0.9), NStepStepProcessor(n, 0.9)
    buffer = FrameReplayBufferConfig(capacity=capacity, stack=stack, per=PerConfig() if per else None).build(
        0
    )
    naive: list[Transition] = []
    t = 0
    for length, end in episodes:
        frame_proc.reset(stream.obs)
        naive_proc.reset(stream.obs)
        for i in range(length):
            last = i == length - 1
            t += 1
            step = stream.step(t % 3, float(t), last and end == 1, last and end == 2)
            for item in frame_proc.process(step):
                buffer.push(item)
            naive += naive_proc.process(step)
        if end == 0:  # an unfinished episode: the next one starts from a fresh stack
            stream.obs = stream._first()
    return buffer, naive


def _key(obs: Any, act: Any, next_obs: Any, *scalars: Any) -> tuple[Any, ...]:
    return (np.asarray(obs).tobytes(), int(act), np.asarray(next_obs).tobytes(), *map(float, scalars))


@settings(max_examples=150, deadline=None)
@given(_episodes, st.integers(1, 4), st.integers(1, 4), st.integers(4, 40), st.booleans())
def test_every_sampleable_transition_is_one_of_the_references(
    episodes: list[tuple[int, int]], n: int, stack: int, capacity: int, per: bool
) -> None:
    buffer, naive = _run(episodes, n, stack, capacity, per)
    _assert_sampleable_rows_are_references(buffer, naive)


@settings(max_examples=100, deadline=None)
@given(_episodes, st.integers(1, 4), st.integers(1, 4))
def test_without_overwriting_every_completed_transition_is_sampleable(
    episodes: list[tuple[int, int]], n: int, stack: int
) -> None:
    """A buffer large enough for the whole stream holds every reference transition of the ended episodes;
    of an unfinished one, those whose next observation's frame was stored: item ``t``'s needs item
    ``t + n``, itself pushed ``n`` steps later, so such an episode loses ``n`` more than the reference."""
    buffer, naive = _run(episodes, n, stack, capacity=200, per=False)
    lost = sum(min(length, length - n + 1 if length >= n else 0, n) for length, end in episodes if end == 0)
    assert len(buffer) == len(naive) - lost


@settings(max_examples=100, deadline=None)
@given(st.lists(_episodes, min_size=2, max_size=3), st.integers(1, 3), st.integers(1, 4), st.integers(2, 12))
def test_interleaved_sub_envs_keep_lanes_apart_and_match_their_references(
    lanes: list[list[tuple[int, int]]], n: int, stack: int, lane_capacity: int
) -> None:
    """A vector env's sub-envs step in turn, as the sampler steps them; each one's items go to its own lane,
    and every sampleable transition is one of its sub-env's reference transitions."""
    k = len(lanes)
    buffer = FrameReplayBufferConfig(capacity=k * lane_capacity, stack=stack, streams=k).build(seed=0)
    # Unique frames across sub-envs: sub-env i counts from i * 10,000.
    streams = [FrameStream(stack, env_id=i, start=i * 10_000) for i in range(k)]
    procs = [(FrameStackStepProcessor(n, 0.9), NStepStepProcessor(n, 0.9)) for _ in range(k)]
    plans = [
        [(i == length - 1, end) for length, end in episodes for i in range(length)] for episodes in lanes
    ]
    naive: list[Transition] = []
    for stream, (fp, np_) in zip(streams, procs, strict=True):
        fp.reset(stream.obs)
        np_.reset(stream.obs)
    for t in range(max(map(len, plans))):
        for i, (stream, (fp, np_)) in enumerate(zip(streams, procs, strict=True)):
            if t >= len(plans[i]):
                continue
            last, end = plans[i][t]
            step = stream.step(t % 3, float(t), last and end == 1, last and end == 2)
            for item in fp.process(step):
                assert item.stream == i
                buffer.push(item)
            naive += np_.process(step)
            if last and end == 0:  # an unfinished episode: the next one starts afresh
                stream.obs = stream._first()
                fp.reset(stream.obs)
                np_.reset(stream.obs)
    _assert_sampleable_rows_are_references(buffer, naive)


def _assert_sampleable_rows_are_references(buffer: FrameReplayBuffer, naive: list[Transition]) -> None:
    """Every row the buffer can sample is one of the reference transitions, each once."""
    reference = {
        _key(
            x.obs,
            x.act,
            x.next_obs,
            np.float32(x.reward),
            x.is_terminated,
            x.is_truncated,
            np.float32(x.discount),
        )
        for x in naive
    }
    rows = buffer.sampleable_rows()
    assert len(buffer) == len(rows)
    if len(rows) == 0:
        return
    b = buffer.gather(rows)
    got = {
        _key(
            b.obs[j],
            b.act[j],
            b.next_obs[j],
            b.reward[j],
            b.is_terminated[j],
            b.is_truncated[j],
            b.discount[j],
        )
        for j in range(len(rows))
    }
    assert len(got) == len(rows)
    assert got <= reference
    assert set(buffer.batch(64).ix_sample.tolist()) <= set(rows.tolist())


def test_stacks_never_mix_episodes_and_wrapping_keeps_recent_ones() -> None:
    buffer, _ = _run([(5, 1), (3, 2), (7, 1), (2, 0), (9, 2)], n=3, stack=4, capacity=12, per=False)
    rows = buffer.sampleable_rows()
    b = buffer.gather(rows)
    # 12 slots hold the last 9-step episode (9 items + its final frame) and 2 items of the one before,
    # whose next observations were never reached (an unfinished episode): only the last 9 are sampleable.
    assert len(rows) == 9
    first = b.obs[:, :, 0, 0].int()
    # An episode's first observation: zeros but for its newest frame.
    assert (first == 0).sum().item() >= 3


def test_prioritized_sampling_skips_unsampleable_rows_and_weights_are_normalised() -> None:
    buffer, _ = _run([(6, 1), (4, 0), (5, 2)], n=2, stack=2, capacity=64, per=True)
    batch = buffer.batch(256)
    assert set(batch.ix_sample.tolist()) <= set(buffer.sampleable_rows().tolist())
    assert batch.weight is not None
    assert float(batch.weight.max()) <= 1.0
    buffer.update_priority(batch.ix_sample[:1], np.array([100.0], np.float32))
    hot = int(batch.ix_sample[0])
    assert (buffer.batch(256).ix_sample == hot).mean() > 0.5


def test_save_and_load_restore_contents_and_sampling(tmp_path: Path) -> None:
    buffer, _ = _run([(6, 1), (30, 2), (4, 0)], n=3, stack=4, capacity=16, per=True)
    buffer.save(tmp_path)
    restored = FrameReplayBufferConfig(capacity=16, stack=4, per=PerConfig()).build(seed=99)
    restored.load(tmp_path)
    assert len(restored) == len(buffer)
    a, b = buffer.batch(8), restored.batch(8)
    assert np.array_equal(a.ix_sample, b.ix_sample)
    assert torch.equal(a.obs, b.obs)
    assert torch.equal(a.next_obs, b.next_obs)
    other = FrameReplayBufferConfig(capacity=16, stack=3, per=PerConfig()).build(seed=0)
    with pytest.raises(ValueError, match="stack"):
        other.load(tmp_path)
    (tmp_path / "replay_buffer.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable frame replay buffer"):
        restored.load(tmp_path)
    assert len(restored) == len(buffer)  # unchanged by the failed load


def test_bad_items_are_refused_with_the_field_named() -> None:
    buffer = FrameReplayBufferConfig(capacity=8, stack=2).build(seed=0)
    ok = FrameTransition(
        frame=np.zeros((2, 2), np.uint8),
        act=np.array(0),
        reward=0.0,
        is_terminated=False,
        is_truncated=False,
        discount=0.9,
        episode_start=True,
        next_offset=1,
    )
    buffer.push(ok)
    with pytest.raises(ValueError, match="frame float32"):
        buffer.push(attrs.evolve(ok, frame=np.zeros((2, 2), np.float32)))
    with pytest.raises(ValueError, match="reward"):
        buffer.push(attrs.evolve(ok, reward=float("nan")))
    with pytest.raises(ValueError, match="set 'streams'"):
        buffer.push(attrs.evolve(ok, stream=1))
    with pytest.raises(ValueError, match="multiple of 'streams'"):
        FrameReplayBufferConfig(capacity=10, streams=3)
    with pytest.raises(ValueError, match="no complete transition"):
        FrameReplayBufferConfig(capacity=8, stack=2).build(seed=0).batch(1)


def test_step_processor_refuses_an_env_that_stacks_otherwise() -> None:
    proc = FrameStackStepProcessor(1, 0.99)
    with pytest.raises(ValueError, match="zeros before its newest frame"):
        proc.reset(np.ones((4, 2, 2), np.uint8))  # padded by repeating the first frame
    with pytest.raises(ValueError, match="uint8 frame stacks"):
        proc.reset(np.zeros((4, 2, 2), np.float32))
    stream = FrameStream(4)
    proc.reset(stream.obs)
    step = stream.step(0, 0.0, False, False)
    shuffled = Step(
        act=step.act, obs=step.obs[::-1].copy(), reward=0.0, is_terminated=False, is_truncated=False
    )
    with pytest.raises(ValueError, match="shifted by one frame"):
        proc.process(shuffled)


def test_memory_per_transition_is_at_most_1_1_frames_of_84x84() -> None:
    """The issue's bound, at a small scale: one 84x84 frame per transition, the per-slot columns and one
    final frame per episode (episodes of 100 steps here; Pong's are about 800)."""
    buffer = FrameReplayBufferConfig(capacity=2_000, stack=4).build(seed=0)
    proc = FrameStackStepProcessor(3, 0.99)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs = np.zeros((4, 84, 84), np.uint8)
        obs[-1] = rng.integers(0, 256, (84, 84))
        proc.reset(obs)
        for t in range(100):
            nxt = np.concatenate([obs[1:], rng.integers(0, 256, (1, 84, 84)).astype(np.uint8)])
            step = Step(
                act=np.array(1),
                obs=nxt,
                reward=1.0,
                is_terminated=t == 99,
                is_truncated=False,
                init_obs=np.zeros((4, 84, 84), np.uint8) if t == 99 else None,
            )
            for item in proc.process(step):
                buffer.push(item)
            obs = nxt
    transitions = len(buffer)
    assert transitions >= 1_900
    assert buffer.nbytes() / transitions <= 1.1 * 84 * 84


def test_save_and_load_keep_every_lane(tmp_path: Path) -> None:
    buffer = FrameReplayBufferConfig(capacity=24, stack=2, streams=2).build(seed=0)
    streams = [FrameStream(2, env_id=i, start=1_000 * i) for i in range(2)]
    procs = [FrameStackStepProcessor(2, 0.9) for _ in range(2)]
    for stream, proc in zip(streams, procs, strict=True):
        proc.reset(stream.obs)
    for t in range(30):  # lane 0 wraps; lane 1's episodes end every 7 steps
        for i, (stream, proc) in enumerate(zip(streams, procs, strict=True)):
            for item in proc.process(stream.step(t % 3, float(t), i == 1 and t % 7 == 6, False)):
                buffer.push(item)
    buffer.save(tmp_path)
    restored = FrameReplayBufferConfig(capacity=24, stack=2, streams=2).build(seed=5)
    restored.load(tmp_path)
    assert np.array_equal(restored.sampleable_rows(), buffer.sampleable_rows())
    a, b = buffer.batch(16), restored.batch(16)
    assert torch.equal(a.obs, b.obs)
    assert torch.equal(a.next_obs, b.next_obs)
    one_lane = FrameReplayBufferConfig(capacity=24, stack=2).build(seed=0)
    with pytest.raises(ValueError, match="streams"):
        one_lane.load(tmp_path)


def _partly_filled(prioritized: bool) -> FrameReplayBuffer:
    """4 lanes of 25 rows, each filled by 7 steps: lanes fill side by side, as a vector env fills them."""
    per = PerConfig() if prioritized else None
    buffer = FrameReplayBufferConfig(capacity=100, stack=2, streams=4, per=per).build(seed=0)
    streams = [FrameStream(2, env_id=i, start=1_000 * i) for i in range(4)]
    procs = [FrameStackStepProcessor(2, 0.9) for _ in range(4)]
    for stream, proc in zip(streams, procs, strict=True):
        proc.reset(stream.obs)
    for t in range(7):
        for stream, proc in zip(streams, procs, strict=True):
            for item in proc.process(stream.step(t % 3, float(t), t == 4, False)):
                buffer.push(item)
    return buffer


@pytest.mark.parametrize("prioritized", [False, True])
def test_a_save_holds_each_lanes_written_rows_only_and_loads_them_back(
    prioritized: bool, tmp_path: Path
) -> None:
    buffer = _partly_filled(prioritized)
    buffer.save(tmp_path)
    with np.load(tmp_path / "replay_buffer.npz") as saved:
        frames = len(saved["frames"])
    assert frames == 4 * 7  # each lane's 7 rows, not every row up to the last lane's: 3 * 25 + 7
    restored = FrameReplayBufferConfig(capacity=100, stack=2, streams=4, per=buffer.config.per).build(seed=0)
    restored.load(tmp_path)
    assert np.array_equal(restored.sampleable_rows(), buffer.sampleable_rows())
    a, b = buffer.batch(16), restored.batch(16)
    assert torch.equal(a.obs, b.obs)
    assert torch.equal(a.act, b.act)
    assert torch.equal(a.reward, b.reward)


def test_a_save_of_the_former_layout_still_loads(tmp_path: Path) -> None:
    """border_py's saves before 2026-11-27 held every row up to the last lane's head, gaps included."""
    buffer = _partly_filled(prioritized=False)
    buffer.save(tmp_path)
    file = tmp_path / "replay_buffer.npz"
    with np.load(file) as saved:
        state = json.loads(str(saved["state"]))
    del state["layout"]
    rows = 3 * 25 + 7
    legacy = {name: column[:rows] for name, column in buffer._columns().items()}
    with file.open("wb") as f:
        np.savez(f, state=np.array(json.dumps(state)), **legacy)  # type: ignore[arg-type]  # arrays only
    restored = FrameReplayBufferConfig(capacity=100, stack=2, streams=4).build(seed=0)
    restored.load(tmp_path)
    assert np.array_equal(restored.sampleable_rows(), buffer.sampleable_rows())
    assert torch.equal(buffer.batch(16).obs, restored.batch(16).obs)
