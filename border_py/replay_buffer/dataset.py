"""``ArrayDataset``: a fixed set of transitions, sampled with a seeded RNG, for offline training.

It is a `DatasetBuffer`: the sample side alone. Batches are the
`TransitionBatch` es of the online replay buffer, so every agent that learns
online learns offline from it unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.checkpoint import open_saved
from border_py.replay_buffer.npz import read_npz
from border_py.replay_buffer.storage import COLUMNS, TransitionStorage
from border_py.replay_buffer.transition import TransitionBatch

DATASET_STATE_FILE = "dataset_state.json"


class ArrayDataset:
    """Transitions held in column arrays; ``batch`` samples uniformly with replacement.

    Args:
        columns: one array per field of `COLUMNS`, one row per
            transition (``discount`` is each transition's bootstrap discount, ``gamma^k``).
        seed: the seed of the sampling RNG.
        source: names the data in error messages (a file, a dataset id).

    Raises:
        ValueError: a column is missing or malformed (the message names it).

    Examples:
        >>> n = 5
        >>> columns = {"obs": np.zeros((n, 3)), "next_obs": np.ones((n, 3)), "act": np.zeros(n, np.int64),
        ...            "reward": np.ones(n), "is_terminated": np.zeros(n), "is_truncated": np.zeros(n),
        ...            "discount": np.full(n, 0.99)}
        >>> dataset = ArrayDataset(columns, seed=0)
        >>> len(dataset), dataset.batch(4).obs.shape
        (5, torch.Size([4, 3]))
    """

    def __init__(self, columns: Mapping[str, npt.NDArray[Any]], seed: int, source: str = "dataset") -> None:
        n = len(columns["obs"]) if "obs" in columns else 0
        self.storage = TransitionStorage.from_columns(columns, n, source)
        self.source = source
        self._len = n
        self._rng = np.random.default_rng(seed)
        self._n_batches = 0

    def __len__(self) -> int:
        return self._len

    def check_fits(self, spaces: Spaces) -> None:
        """`TransitionStorage.check_fits` for every transition: the data is of an env with ``spaces``.

        Raises:
            ValueError: it is not (the dataset and both shapes named).
        """
        self.storage.check_fits(spaces, self._len, self.source)

    def batch(self, size: int) -> TransitionBatch:
        """Samples ``size`` transitions uniformly, with replacement.

        Raises:
            ValueError: ``size`` < 1 or the dataset is empty.
        """
        if size < 1:
            raise ValueError(f"batch size must be >= 1, got {size}")
        if self._len == 0:
            raise ValueError(f"cannot sample from the empty dataset {self.source}")
        self._n_batches += 1
        return self.storage.gather(self._rng.integers(0, self._len, size=size, dtype=np.int64))

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[Any]) -> None:
        """Does nothing: sampling is uniform."""

    def save(self, path: Path) -> list[Path]:
        """Writes the sampling RNG and the batch count to ``path/dataset_state.json`` (not the data)."""
        file = path / DATASET_STATE_FILE
        state = {"len": self._len, "n_batches": self._n_batches, "rng": self._rng.bit_generator.state}
        file.write_text(json.dumps(state))
        return [file]

    def load(self, path: Path) -> None:
        """Reads what `save` wrote into ``path``.

        Raises:
            FileNotFoundError: the file is missing.
            ValueError: it is corrupt, or was saved for a dataset of another size.
        """
        file = path / DATASET_STATE_FILE
        if not file.is_file():
            raise FileNotFoundError(f"{file} not found: the checkpoint holds no dataset sampling state")
        try:
            with open_saved(file) as f:
                state = json.loads(f.read())
            rng = np.random.default_rng()
            rng.bit_generator.state = state["rng"]
            saved_len, n_batches = int(state["len"]), int(state["n_batches"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{file} is not a readable dataset sampling state: {exc!r}") from exc
        if saved_len != self._len:
            raise ValueError(
                f"{file} was saved for a dataset of {saved_len} transitions, this one has {self._len}"
            )
        self._rng, self._n_batches = rng, n_batches


def load_columns(file: Path) -> dict[str, npt.NDArray[Any]]:
    """The transition columns of an ``.npz`` file (a dataset, or a saved replay buffer's
    ``replay_buffer.npz``; other arrays in it are ignored), read without pickle.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is unreadable or lacks a column.
    """
    if not file.is_file():
        raise FileNotFoundError(f"{file} not found")
    arrays = read_npz(file, ".npz", follow_link=True)
    missing = [name for name in COLUMNS if name not in arrays]
    if missing:
        raise ValueError(f"{file} lacks the columns {missing}")
    return {name: arrays[name] for name in COLUMNS}


@attrs.frozen(kw_only=True)
class ArrayDatasetConfig:
    """Config of an `ArrayDataset` read from an ``.npz`` file of transition columns.

    A saved replay buffer (``model_dir/<opt_steps>/replay_buffer.npz`` with ``checkpoint_buffer``) is
    such a file: an online run's experience becomes an offline dataset.
    """

    path: str = attrs.field(validator=attrs.validators.min_len(1))
    """The ``.npz`` file."""

    def build(self, seed: int) -> ArrayDataset:
        """Reads the file into a dataset whose sampling is seeded with ``seed``."""
        return ArrayDataset(load_columns(Path(self.path)), seed, source=self.path)
