"""A saved buffer file (``replay_buffer.npz``, ``rollout_buffer.npz``) that declares a huge or negative
length, in its JSON state or in an array's ``.npy`` header, or whose member inflates far beyond the file:
refused in one line naming the file, before anything of that size is allocated (traced: numpy reports its
allocations to ``tracemalloc``), and the buffer is unchanged."""

from __future__ import annotations

import io
import json
import re
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from border_py import (
    FrameReplayBufferConfig,
    FrameStackStepProcessor,
    RolloutBufferConfig,
    SimpleReplayBufferConfig,
    Step,
    Transition,
)
from border_py.run.cli import main
from tests.run.test_reliability import snapshot
from tests.run.tiny import tiny_config

Forgery = Callable[[str, bytes], bytes]
LIMIT = 50 * 2**20
"""The most a refused load may allocate: the buffers here hold a few kB."""


def _transition(k: int) -> Transition:
    obs = np.full(3, k, np.float32)
    return Transition(obs=obs, act=np.array(k % 2), next_obs=obs + 1, reward=1.0, is_terminated=False,
                      is_truncated=False, discount=0.99)  # fmt: skip


def _simple(path: Path) -> Any:
    buffer = SimpleReplayBufferConfig(capacity=64).build(0)
    for k in range(20):
        buffer.push(_transition(k))
    buffer.save(path)
    return SimpleReplayBufferConfig(capacity=64).build(0)


def _rollout(path: Path) -> Any:
    buffer = RolloutBufferConfig(n_steps=16).build(0)
    for k in range(10):
        buffer.push(_transition(k))
    buffer.save(path)
    return RolloutBufferConfig(n_steps=16).build(0)


def _frames(path: Path) -> Any:
    buffer, processor = (
        FrameReplayBufferConfig(capacity=64, stack=2).build(0),
        FrameStackStepProcessor(1, 0.9),
    )
    obs = np.zeros((2, 4, 4), np.uint8)
    processor.reset(obs)
    for k in range(20):
        obs = np.concatenate([obs[1:], np.full((1, 4, 4), k, np.uint8)])
        step = Step(act=np.array(k % 2), obs=obs, reward=1.0, is_terminated=False, is_truncated=False,
                    info={}, init_obs=None)  # fmt: skip
        for item in processor.process(step):
            buffer.push(item)
    buffer.save(path)
    return FrameReplayBufferConfig(capacity=64, stack=2).build(0)


BUFFERS: dict[str, tuple[Callable[[Path], Any], str, str]] = {
    # kind: (saves one and returns an empty twin, its file, a column)
    "simple": (_simple, "replay_buffer.npz", "obs"),
    "rollout": (_rollout, "rollout_buffer.npz", "obs"),
    "frames": (_frames, "replay_buffer.npz", "frames"),
}


def _rows(rows: int, column: str) -> Forgery:
    """``column``'s ``.npy`` header claims ``rows`` rows; its data stays as it was."""

    def forge(name: str, member: bytes) -> bytes:
        if name != f"{column}.npy":
            return member
        stream = io.BytesIO(member)
        np.lib.format.read_magic(stream)
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        header = io.BytesIO()
        descr = np.lib.format.dtype_to_descr(dtype)
        np.lib.format.write_array_header_1_0(
            header, {"descr": descr, "fortran_order": fortran, "shape": (rows, *shape[1:])}
        )
        return header.getvalue() + member[stream.tell() :]

    return forge


def _state(**changes: Any) -> Forgery:
    """The JSON state with ``changes``."""

    def forge(name: str, member: bytes) -> bytes:
        if name != "state.npy":
            return member
        state = json.loads(str(np.load(io.BytesIO(member))))
        out = io.BytesIO()
        np.save(out, np.array(json.dumps({**state, **changes})))
        return out.getvalue()

    return forge


def _rewrite(file: Path, forge: Forgery) -> None:
    with zipfile.ZipFile(file) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, member in members.items():
            archive.writestr(name, forge(name, member))


def _inflating(file: Path, column: str, rows: int) -> None:
    """``column`` replaced by a deflated member of ``rows`` zero rows: a few hundred kB that inflate to
    ``rows`` x its row's bytes."""
    with zipfile.ZipFile(file) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    stream = io.BytesIO(members[f"{column}.npy"])
    np.lib.format.read_magic(stream)
    shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
    row = np.zeros((1 << 14, *shape[1:]), dtype).tobytes()
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, member in members.items():
            if name != f"{column}.npy":
                archive.writestr(name, member)
                continue
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as out:
                header = io.BytesIO()
                descr = np.lib.format.dtype_to_descr(dtype)
                np.lib.format.write_array_header_1_0(
                    header, {"descr": descr, "fortran_order": False, "shape": (rows, *shape[1:])}
                )
                out.write(header.getvalue())
                for _ in range(rows >> 14):
                    out.write(row)


CASES = {
    "header of 10**12 rows": lambda file, column: _rewrite(file, _rows(10**12, column)),
    "header of 10**9 rows": lambda file, column: _rewrite(file, _rows(10**9, column)),
    "header of -1 rows": lambda file, column: _rewrite(file, _rows(-1, column)),
    "state len 10**12": lambda file, column: _rewrite(file, _state(len=10**12, heads=[10**12])),
    "state len -1": lambda file, column: _rewrite(file, _state(len=-1, heads=[-1])),
    "state len as text": lambda file, column: _rewrite(file, _state(len="many", heads=["many"])),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("kind", sorted(BUFFERS))
def test_a_buffer_file_declaring_a_huge_or_negative_length_is_refused_naming_it_allocating_nothing_of_it(
    kind: str, case: str, tmp_path: Path
) -> None:
    save, name, column = BUFFERS[kind]
    empty = save(tmp_path)
    CASES[case](tmp_path / name, column)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / name))) as refused:
            empty.load(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "\n" not in str(refused.value)
    assert peak < LIMIT
    assert len(empty) == 0


def test_a_member_that_inflates_far_beyond_the_file_is_refused_before_it_inflates(tmp_path: Path) -> None:
    empty = _simple(tmp_path)
    _inflating(tmp_path / "replay_buffer.npz", "obs", 1 << 23)  # 128 MB of float32 rows in about 130 kB
    assert (tmp_path / "replay_buffer.npz").stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"replay_buffer\.npz is not a readable replay buffer file: obs"):
            empty.load(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < LIMIT


def test_resume_from_a_checkpoint_whose_buffer_declares_10_12_rows_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    assert (
        main(["train", "--config", str(tiny_config(tmp_path)), "--model-dir", str(run), "--no-progress"]) == 0
    )
    _rewrite(run / "40" / "replay_buffer.npz", _rows(10**12, "obs"))
    before = snapshot(run)
    capsys.readouterr()
    assert main(["resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=60"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(
        f"error: {run / '40' / 'replay_buffer.npz'} is not a readable replay buffer file"
    )
    assert "declares shape (1000000000000, 4)" in err[0]
    assert snapshot(run) == before
