"""``ImageColumns``: where a dict observation's image parts lie in the flat float32 observation, so that a
`TransitionStorage` keeps them as uint8 (a quarter of the bytes, as Stable-Baselines3 stores images) and
the other columns as float32, and gives back the float32 rows it was handed.

An image part holds whole numbers 0-255 (`border_py.base.obs_parts.ObsPart`), exact in float32 and in
uint8 alike, so the round trip changes no bit; values that are not are refused, naming the part, rather
than wrapped or rounded.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces

F32 = npt.NDArray[np.float32]
U8 = npt.NDArray[np.uint8]
Rows = int | slice | npt.NDArray[np.int64]
"""The rows to read or write: one row, a run of rows, or sampled indices."""


@attrs.frozen
class ImageColumns:
    """The image parts' spans in a flat observation of ``dim`` columns, in part order.

    ``segments`` tiles ``[0, dim)`` with the runs of image and of other columns, each as ``(flat slice,
    slice of its own array, image or not)``: reading or writing a row is one slice copy per run.

    Examples:
        >>> from border_py.base.obs_parts import ObsParts
        >>> parts = ObsParts.of({"pos": (2,), "camera": (2, 2, 1)}, images=["camera"])
        >>> columns = ImageColumns.of(Spaces(obs_shape=(6,), n_actions=2, obs_parts=parts))
        >>> columns.n_image, columns.n_other
        (4, 2)
    """

    dim: int
    """The length of the flat observation."""
    images: tuple[tuple[str, slice], ...]
    """Each image part's key and span in the flat observation, in order."""
    segments: tuple[tuple[slice, slice, bool], ...] = attrs.field(init=False)

    @segments.default
    def _segments(self) -> tuple[tuple[slice, slice, bool], ...]:
        runs: list[tuple[slice, slice, bool]] = []
        at, n_image = 0, 0
        for _, span in self.images:
            if span.start > at:
                runs.append((slice(at, span.start), slice(at - n_image, span.start - n_image), False))
            size = span.stop - span.start
            runs.append((span, slice(n_image, n_image + size), True))
            at, n_image = span.stop, n_image + size
        if at < self.dim:
            runs.append((slice(at, self.dim), slice(at - n_image, self.dim - n_image), False))
        return tuple(runs)

    @staticmethod
    def of(spaces: Spaces) -> ImageColumns | None:
        """The image columns of ``spaces``'s dict observation; ``None`` when it has no image part."""
        parts = spaces.obs_parts
        if parts is None or not parts.images:
            return None
        return ImageColumns(parts.dim, tuple((p.key, parts.span(p.key)) for p in parts.images))

    @property
    def n_image(self) -> int:
        """The number of image columns."""
        return sum(span.stop - span.start for _, span in self.images)

    @property
    def n_other(self) -> int:
        """The number of other (float32) columns."""
        return self.dim - self.n_image

    def check(self, values: npt.NDArray[Any], where: str) -> None:
        """Checks that the image columns of ``values`` (rows ``(..., dim)``) are whole numbers in 0-255.

        Raises:
            ValueError: one is not (NaN included); the message opens with ``where`` and names the part.
        """
        for key, span in self.images:
            v = values[..., span]
            ok = (v >= 0) & (v <= 255) & (v == np.floor(v))
            if not ok.all():
                bad = float(v[~ok].flat[0])
                raise ValueError(
                    f"{where}: image part {key!r} holds {bad!r}, not a whole number in 0-255 (image parts "
                    "are stored as uint8)"
                )

    def write(self, other: F32, image: U8, rows: Rows, values: npt.NDArray[Any]) -> None:
        """Writes flat ``values`` into ``rows`` of the two arrays (checked by `check` first)."""
        for flat, own, is_image in self.segments:
            (image if is_image else other)[rows, own] = values[..., flat]

    def read(self, other: F32, image: U8, rows: Rows) -> F32:
        """The flat float32 observations of ``rows`` (a new array)."""
        if isinstance(rows, np.ndarray):
            # ``take``, as `TransitionStorage.gather` does for its other columns: then slices of two copies.
            other, image = other.take(rows, axis=0), image.take(rows, axis=0)
        else:
            other, image = other[rows], image[rows]
        out = np.empty((*other.shape[:-1], self.dim), dtype=np.float32)
        for flat, own, is_image in self.segments:
            out[..., flat] = (image if is_image else other)[..., own]
        return out
