"""``TransitionStorage``: the column arrays of stored transitions, shared by the replay buffer (a ring) and
the datasets (fixed)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.replay_buffer.image_columns import ImageColumns
from border_py.replay_buffer.transition import Transition, TransitionBatch

if TYPE_CHECKING:
    import torch

_FLOAT32_MAX = float(np.finfo(np.float32).max)

COLUMNS = ("obs", "next_obs", "act", "reward", "is_terminated", "is_truncated", "discount")
"""The columns a saved buffer or a dataset file holds, one row per transition."""


class TransitionStorage:
    """One numpy array per transition field, ``capacity`` rows each.

    Observations are float32, or uint8 pixels where the owner asks for them (``pixels``: a rollout of
    Atari frames, a quarter of the bytes); with ``images``, a flat observation's image columns are uint8
    (``obs_images``, ``next_obs_images``) and ``obs``/``next_obs`` hold its other columns; actions int64
    (discrete) or float32; the four scalar columns are views of one ``(capacity, 4)`` float32 array, so a
    sampled transition's scalars share a cache line (one miss instead of four in a large buffer).

    Args:
        obs_shape: the shape of one observation.
        act_shape: the shape of one action (``()`` for a discrete action).
        act_int: whether actions are integers.
        capacity: the number of rows.
        pixels: store observations as uint8.
        images: where the image parts of a dict observation of shape ``(images.dim,)`` lie, to store
            them as uint8 (not with ``pixels``).
    """

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        act_shape: tuple[int, ...],
        act_int: bool,
        capacity: int,
        pixels: bool = False,
        images: ImageColumns | None = None,
    ) -> None:
        self.obs_shape = tuple(obs_shape)
        """The shape of one observation."""
        self.images = images
        """The image columns kept as uint8; ``None``: observations are one array each."""
        obs_dtype = np.uint8 if pixels else np.float32
        own_shape = self.obs_shape if images is None else (images.n_other,)
        self.obs = np.zeros((capacity, *own_shape), dtype=obs_dtype)
        self.next_obs = np.zeros((capacity, *own_shape), dtype=obs_dtype)
        n_image = 0 if images is None else images.n_image
        self.obs_images = np.zeros((capacity if n_image else 0, n_image), dtype=np.uint8)
        self.next_obs_images = np.zeros((capacity if n_image else 0, n_image), dtype=np.uint8)
        self.act = np.zeros((capacity, *act_shape), dtype=np.int64 if act_int else np.float32)
        self.scalars = np.zeros((capacity, 4), dtype=np.float32)
        self.reward, self.is_terminated, self.is_truncated, self.discount = (
            self.scalars[:, k] for k in range(4)
        )

    @staticmethod
    def row_bytes(spaces: Spaces, pixels: bool = False, images: bool = False) -> int:
        """The bytes of one row for an env of ``spaces``: both observations, the action and the four
        scalars, as `__init__` allocates them (``images``: a dict observation's image parts as uint8)."""
        obs = math.prod(spaces.obs_shape) * (1 if pixels else 4)
        columns = ImageColumns.of(spaces) if images else None
        if columns is not None:
            obs = 4 * columns.n_other + columns.n_image
        act = 8 if spaces.n_actions is not None else 4 * spaces.action_dim
        return 2 * obs + act + 4 * 4

    @property
    def act_shape(self) -> tuple[int, ...]:
        """The shape of one action."""
        return tuple(self.act.shape[1:])

    def check_fits(self, spaces: Spaces, rows: int, source: str) -> None:
        """Checks that the first ``rows`` transitions are of an env with ``spaces``: the observation shape,
        and the actions (integers below ``n_actions``, or the box's size).

        Raises:
            ValueError: they are not (``source`` and both shapes named): the data came from another env.
        """
        where = f"{source} holds transitions of another env than the evaluation env"
        if self.obs_shape != spaces.obs_shape:
            raise ValueError(
                f"{where}: observations of shape {self.obs_shape}, the env's are {spaces.obs_shape} "
                "(check env.name)"
            )
        if spaces.n_actions is None:
            if self.act.dtype.kind != "f" or int(np.prod(self.act_shape)) != spaces.action_dim:
                raise ValueError(
                    f"{where}: actions of shape {self.act_shape} ({self.act.dtype}), the env's are "
                    f"{spaces.action_dim} numbers (check env.name)"
                )
            return
        act = self.act[:rows]
        if (
            self.act.dtype.kind not in "iu"
            or self.act_shape
            or (rows and not 0 <= act.min() <= act.max() < spaces.n_actions)
        ):
            raise ValueError(
                f"{where}: its actions are not integers below the env's {spaces.n_actions} (check env.name)"
            )

    def put(self, i: int, item: Transition) -> None:
        """Writes ``item`` into row ``i``, after checking its shapes against the storage's and its reward
        against float32's range.

        Raises:
            ValueError: the observation or action shape differs from the storage's (set by the first
                transition), or the reward is not finite as a float32 (nothing is written then).
        """
        shape = self.obs_shape
        if item.obs.shape != shape or item.next_obs.shape != shape:
            raise ValueError(
                f"transition shapes obs {item.obs.shape}, next_obs {item.next_obs.shape} do not match the "
                f"buffer's observations {shape} (set by the first transition pushed)"
            )
        if self.images is not None:
            self.images.check(item.obs, "transition obs")
            self.images.check(item.next_obs, "transition next_obs")
        if self.obs.dtype == np.uint8 and (item.obs.dtype != np.uint8 or item.next_obs.dtype != np.uint8):
            raise ValueError(
                f"transition observations of {item.obs.dtype}/{item.next_obs.dtype} in a buffer of uint8 "
                "pixels (set by the first transition pushed)"
            )
        # Checked against float32's range, not only for NaN: a finite float64 reward (an n-step sum of large
        # ones) can overflow to inf in the float32 column. The comparison is False for NaN too.
        if not -_FLOAT32_MAX <= item.reward <= _FLOAT32_MAX:
            raise ValueError(f"transition reward {item.reward!r} is not finite as a float32")
        try:
            self.act[i] = item.act
        except ValueError as exc:
            raise ValueError(
                f"transition action shape {np.shape(item.act)} does not match the buffer's "
                f"{self.act.shape[1:]} (set by the first transition pushed)"
            ) from exc
        if self.images is None:
            self.obs[i] = item.obs
            self.next_obs[i] = item.next_obs
        else:
            self.images.write(self.obs, self.obs_images, i, item.obs)
            self.images.write(self.next_obs, self.next_obs_images, i, item.next_obs)
        self.reward[i] = item.reward
        self.is_terminated[i] = item.is_terminated
        self.is_truncated[i] = item.is_truncated
        self.discount[i] = item.discount

    @staticmethod
    def for_first(
        first: Transition, capacity: int, keep_uint8: bool = False, images: ImageColumns | None = None
    ) -> TransitionStorage:
        """Storage shaped after the first transition pushed; with ``keep_uint8``, uint8 observations are
        stored as uint8; with ``images``, those image columns of a flat observation of their length."""
        obs, act = np.asarray(first.obs), np.asarray(first.act)
        act_int = bool(np.issubdtype(act.dtype, np.integer))
        pixels = keep_uint8 and obs.dtype == np.uint8
        return TransitionStorage(
            obs.shape, act.shape, act_int, capacity, pixels, _fitting(images, obs.dtype, obs.shape)
        )

    def gather(self, ix: npt.NDArray[np.int64], weight: torch.Tensor | None = None) -> TransitionBatch:
        """The rows ``ix`` as a batch of tensors that share memory with no further copy."""
        import torch  # on the first batch (see `border_py.replay_buffer`)

        # ``take(ix, axis=0)``, not ``a[ix]``: the same rows, without numpy's general fancy-indexing
        # machinery (benchmarks/RESULTS.md has the measured gain). The scalar columns come out as strided
        # views of one gathered array.
        reward, is_terminated, is_truncated, discount = torch.from_numpy(
            self.scalars.take(ix, axis=0)
        ).unbind(1)
        return TransitionBatch(
            obs=torch.from_numpy(self._obs_rows("obs", ix)),
            act=torch.from_numpy(self.act.take(ix, axis=0)),
            next_obs=torch.from_numpy(self._obs_rows("next_obs", ix)),
            reward=reward,
            is_terminated=is_terminated,
            is_truncated=is_truncated,
            discount=discount,
            ix_sample=ix,
            weight=weight,
        )

    def _obs_rows(self, name: str, rows: npt.NDArray[np.int64] | slice) -> npt.NDArray[Any]:
        """Rows of the column ``obs`` or ``next_obs``, flat float32 where image columns are apart."""
        own: npt.NDArray[Any] = getattr(self, name)
        if self.images is None:
            return own.take(rows, axis=0) if isinstance(rows, np.ndarray) else own[rows]
        return self.images.read(own, getattr(self, f"{name}_images"), rows)

    def columns(self, n: int) -> dict[str, npt.NDArray[Any]]:
        """The first ``n`` rows of every column, by name (views, not copies; with image columns apart,
        ``obs`` and ``next_obs`` are flat float32 copies, the file format of a storage without them)."""
        return {
            name: self._obs_rows(name, slice(0, n)) if name.endswith("obs") else getattr(self, name)[:n]
            for name in COLUMNS
        }

    @staticmethod
    def from_columns(
        arrays: Mapping[str, npt.NDArray[Any]],
        capacity: int,
        source: str,
        keep_uint8: bool = False,
        images: ImageColumns | None = None,
    ) -> TransitionStorage:
        """Storage of ``capacity`` rows whose first rows are ``arrays`` (every column of `COLUMNS`,
        all of one length, finite, terminated and truncated 0 or 1); with ``keep_uint8``, uint8
        observation columns stay uint8; with ``images`` (as `for_first`), the flat observations' image
        columns are stored as uint8.

        Raises:
            ValueError: a column is missing, of another length, does not fit the first one's shapes, or
                holds a value that is not finite (or, in an image column, not a whole number in 0-255);
                the message names ``source`` and the column.
        """
        missing = [name for name in COLUMNS if name not in arrays]
        if missing:
            raise ValueError(f"{source}: the columns {missing} are missing")
        n = len(arrays["obs"])
        if n > capacity or any(len(arrays[name]) != n for name in COLUMNS):
            lengths = {name: len(arrays[name]) for name in COLUMNS}
            raise ValueError(f"{source}: the columns must have one length <= {capacity}, got {lengths}")
        obs, act = np.asarray(arrays["obs"]), np.asarray(arrays["act"])
        act_int = bool(np.issubdtype(act.dtype, np.integer))
        pixels = keep_uint8 and obs.dtype == np.uint8 and np.asarray(arrays["next_obs"]).dtype == np.uint8
        images = None if pixels else _fitting(images, obs.dtype, obs.shape[1:])
        storage = TransitionStorage(obs.shape[1:], act.shape[1:], act_int, capacity, pixels, images)
        for name in COLUMNS:
            storage._fill(name, np.asarray(arrays[name]), n, source)
        for name in ("is_terminated", "is_truncated"):
            if not np.isin(getattr(storage, name)[:n], (0.0, 1.0)).all():
                raise ValueError(f"{source}: column {name} must hold only 0 and 1")
        if not ((storage.discount[:n] >= 0.0) & (storage.discount[:n] <= 1.0)).all():
            raise ValueError(f"{source}: column discount must lie in [0, 1]")
        return storage

    def _fill(self, name: str, column: npt.NDArray[Any], n: int, source: str) -> None:
        """Writes ``column`` into the first ``n`` rows of column ``name``, after checking it."""
        if column.dtype.kind not in "biuf":
            raise ValueError(f"{source}: column {name} has dtype {column.dtype}, not numbers")
        target = getattr(self, name)
        images = self.images if name.endswith("obs") else None  # an observation column split in two
        row_shape = target.shape[1:] if images is None else self.obs_shape
        if column.shape[1:] != row_shape:
            raise ValueError(
                f"{source}: column {name} has rows of shape {column.shape[1:]}, expected {row_shape}"
            )
        if images is None:
            target[:n] = column
        else:
            images.check(column, f"{source}: column {name}")
            images.write(target, getattr(self, f"{name}_images"), slice(0, n), column)
        if not np.isfinite(target[:n]).all():
            raise ValueError(f"{source}: column {name} holds a value that is not finite (in float32)")


def _fitting(
    images: ImageColumns | None, dtype: np.dtype[Any], shape: tuple[int, ...]
) -> ImageColumns | None:
    """``images`` where observations of ``dtype`` and ``shape`` are flat float vectors of their length;
    else ``None``: a step processor of one's own may change the observation, whose layout is then unknown."""
    if images is None or dtype.kind != "f" or tuple(shape) != (images.dim,):
        return None
    return images
