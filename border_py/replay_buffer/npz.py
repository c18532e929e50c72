"""A saved buffer's ``.npz`` file (what ``np.savez`` writes), read as data from anyone: no pickle, never
through a symbolic link, and never an allocation beyond what the file holds."""

from __future__ import annotations

import math
import os
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from border_py.checkpoint import open_saved


def read_npz(file: Path, what: str, follow_link: bool = False) -> dict[str, npt.NDArray[Any]]:
    """The arrays of ``file``, by name (``obs``, not ``obs.npy``); ``file`` may be a symbolic link only
    with ``follow_link`` (a file the user named, not one found in a model directory).

    Each member is checked before it is read: stored, not compressed (``np.savez`` never compresses),
    and holding exactly the bytes its header declares. ``np.load`` would allocate what a header declares
    before reading a byte: a header of 10**12 rows in a file of a few kB was a ``MemoryError`` of 15 TiB,
    and a compressed member may inflate far beyond the file.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not such an archive, or holds a link, a pickle or a member whose header
            lies; the message names ``file`` and says it is no readable ``what`` file.
    """
    try:
        with file.open("rb") if follow_link else open_saved(file) as f, zipfile.ZipFile(f) as archive:
            members = archive.infolist()
            stored = sum(info.compress_size for info in members)
            if stored > os.fstat(f.fileno()).st_size:
                raise ValueError(f"its members claim {stored} bytes, more than the file's")
            return {_name(info): _read(archive, info) for info in members}
    except FileNotFoundError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{file} is not a readable {what} file: {exc}") from exc


def _name(info: zipfile.ZipInfo) -> str:
    return info.filename.removesuffix(".npy")


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> npt.NDArray[Any]:
    """One member, once its header is checked against its size."""
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise ValueError(f"{info.filename} is compressed: a saved buffer never is")
    with archive.open(info) as member:
        shape, dtype = _header(member, info.filename)
        declared, held = math.prod(shape) * dtype.itemsize, info.file_size - member.tell()
        if declared != held:
            raise ValueError(
                f"{info.filename}'s header declares shape {shape} of {dtype} ({declared} bytes), but it "
                f"holds {held} bytes"
            )
    with archive.open(info) as member:
        array: npt.NDArray[Any] = np.lib.format.read_array(member, allow_pickle=False)
    return array


def _header(member: IO[bytes], name: str) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype an ``.npy`` member's header declares (format 1.0 or 2.0, as numpy writes)."""
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"{name} is an .npy file of format {version}, not 1.0 or 2.0")
    if dtype.hasobject:
        raise ValueError(f"{name} holds Python objects (a pickle): never loaded")
    return tuple(shape), dtype
