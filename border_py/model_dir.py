"""``ModelDir``: a model directory held for one training run (the lock, crash recovery, another run's saves),
and the saves a directory holds: its numbered checkpoints (the newest complete one, what a resume passes
over, pruning), ``best/``, clearing them for a new run, and what a run did not save (never touched).
Each save itself is `border_py.checkpoint`'s.

Every trainer holds its ``model_dir`` through `ModelDir` while it trains; the run layer's
`RunDir` extends it with the files it owns (``config.yaml``, the recorder's). A model
directory is untrusted input: nothing here writes through a link found in it.

Examples:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, ModelDir(Path(d) / "run").hold() as held:
    ...     held.saved_runs(), held.resume_point()
    ([], None)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from border_py.checkpoint import (
    LEGACY_STATE_FILE,
    META_FILE,
    TRAINER_STATE_FILE,
    checkpoint_problem,
    ensure_writable_dir,
    is_resumable,
    recover_model_dir,
    remove_checkpoint,
    resolve_saved,
)
from border_py.lock import LOCK_FILE, model_dir_lock


class ModelDir:
    """A training run's model directory.

    Args:
        path: the directory (created by `hold` when missing).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    @contextmanager
    def hold(self) -> Iterator[ModelDir]:
        """Creates the directory if needed, checks it is writable, takes its lock for the block (a process
        holding it already takes it again) and cleans up after a crashed save (hidden temporary directories
        of dead processes).

        Raises:
            PermissionError: the directory cannot be written, or its lock file is a link.
            border_py.ModelDirBusyError: another process trains here.
            FileExistsError: it holds folders or files named as border_py's saves (``best``, digits) that
                no run saved, which a run would replace (nothing is written).
        """
        if self.path.is_symlink():
            # The path the user named may be a link (their choice); links found inside it are refused.
            self.path = self.path.resolve()
        foreign = foreign_entries(self.path)
        if foreign:
            raise FileExistsError(
                f"model_dir {str(self.path)!r} holds {', '.join(foreign)}, which no run of border_py saved, "
                "under names its saves use: a run would replace them; train into another --model-dir"
            )
        created = [p for p in (self.path, *self.path.parents) if not p.exists()]  # deepest first
        ensure_writable_dir(self.path)
        new_lock = not (self.path / LOCK_FILE).exists()
        with model_dir_lock(self.path):
            recover_model_dir(self.path)
            try:
                yield self
            except BaseException:
                if new_lock:  # a run refused at its checks leaves nothing behind (removed under the lock)
                    self._remove_lock_and_folders(created)
                raise

    def _remove_lock_and_folders(self, created: list[Path]) -> None:
        """Removes the lock this hold created, also from a directory that holds the user's own files, then
        the folders it created (``runs/dqn/CartPole-v1/seed0`` and the ones above it that were missing)
        while they are empty."""
        (self.path / LOCK_FILE).unlink(missing_ok=True)
        for folder in created:
            if any(folder.iterdir()):
                break
            folder.rmdir()

    def saved_runs(self) -> list[str]:
        """What an earlier run saved here: ``best/`` and the numbered checkpoints (complete or not)."""
        return previous_run(self.path)

    def resume_point(self) -> Path | None:
        """The newest complete checkpoint; ``None`` when there is none."""
        return latest_checkpoint(self.path)

    def refuse_saved_run(self) -> None:
        """A run from scratch never replaces another run's saves.

        Raises:
            FileExistsError: the directory holds ``best/`` or checkpoints (named, with what to do).
        """
        found = self.saved_runs()
        if found:
            raise FileExistsError(
                f"model_dir {str(self.path)!r} holds another run ({', '.join(found)}): resume it "
                "(resume_from=latest_checkpoint(model_dir), or border-py resume), or remove it to start over "
                "(border_py.clear_checkpoints, or --overwrite), or train into another model_dir"
            )


def _numbered_entries(model_dir: Path) -> list[Path]:
    """Every ``model_dir/<digits>`` entry that is a link (never followed), or a directory that a run saved
    (see `_saved_by_a_run`) or that is empty, by number. Another digit-named folder (``2023/`` of photos)
    is not a checkpoint: nothing here lists, prunes or removes it (`foreign_entries` names it)."""
    if not model_dir.is_dir():
        return []
    return sorted(
        (
            p
            for p in model_dir.iterdir()
            if p.name.isdigit() and (p.is_symlink() or (p.is_dir() and _ours_or_empty(p)))
        ),
        key=lambda p: int(p.name),
    )


def _ours_or_empty(path: Path) -> bool:
    """A run's save (complete or damaged since), or an empty folder (nothing to lose)."""
    return _saved_by_a_run(path) or not any(path.iterdir())


def _saved_by_a_run(path: Path) -> bool:
    """Whether ``path`` holds a file that only a border_py save writes (complete or damaged since)."""
    return any((path / name).exists() for name in (META_FILE, TRAINER_STATE_FILE, LEGACY_STATE_FILE))


def _numbered(model_dir: Path) -> list[Path]:
    """The numbered directories, links left out: one is never a checkpoint of this run."""
    return [p for p in _numbered_entries(model_dir) if not p.is_symlink()]


def _link_problem(path: Path) -> str | None:
    return (
        f"{path} is a symbolic link: never followed inside a model directory" if path.is_symlink() else None
    )


def periodic_checkpoints(model_dir: Path) -> list[Path]:
    """The complete ``model_dir/<opt_steps>`` checkpoints, oldest first (by opt steps)."""
    return [p for p in _numbered(model_dir) if is_resumable(p)]


def latest_checkpoint(model_dir: Path) -> Path | None:
    """The complete checkpoint with the most opt steps in ``model_dir``; ``None`` when there is none.

    Incomplete directories are never picked (`skipped_checkpoints` says which and why).

    Examples:
        >>> latest_checkpoint(Path("no/such/dir")) is None
        True
    """
    return resume_scan(model_dir)[0]


def skipped_checkpoints(model_dir: Path) -> list[tuple[Path, str]]:
    """The numbered directories newer than `latest_checkpoint` that are not complete checkpoints,
    each with the reason, newest first: what a resume passes over."""
    return resume_scan(model_dir)[1]


def resume_scan(model_dir: Path) -> tuple[Path | None, list[tuple[Path, str]]]:
    """`latest_checkpoint` and `skipped_checkpoints` from one scan, newest first: the checkpoints older
    than the newest complete one are never read."""
    skipped: list[tuple[Path, str]] = []
    for path in reversed(_numbered_entries(model_dir)):
        problem = _link_problem(path) or checkpoint_problem(path)
        if problem is None:
            return path, skipped
        skipped.append((path, problem))
    return None, skipped


def prune_checkpoints(model_dir: Path, keep: int) -> list[Path]:
    """Removes all but the newest ``keep`` periodic checkpoints (``best`` is never touched), each with
    `remove_checkpoint`; returns the removed ones.

    Raises:
        ValueError: ``keep`` < 1.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    removed = periodic_checkpoints(model_dir)[:-keep]
    for path in removed:
        remove_checkpoint(path)
    return removed


def previous_run(model_dir: Path) -> list[str]:
    """What an earlier training run saved in ``model_dir`` (``best/`` and the numbered checkpoints,
    complete or not, links to them too); empty when there is nothing to lose."""
    found = [p.name + "/" for p in _numbered_entries(model_dir)]
    if _saved_best(model_dir) is not None:
        found.insert(0, "best/")
    return found


def foreign_entries(model_dir: Path) -> list[str]:
    """The entries of ``model_dir`` under a name border_py's saves use (``best``, digits) that no run saved:
    a run would replace them, so `border_py.ModelDir.hold` refuses the directory."""
    if not model_dir.is_dir():
        return []
    return sorted(
        p.name
        for p in model_dir.iterdir()
        if (p.name == "best" or p.name.isdigit())
        and not p.is_symlink()
        and not (p.is_dir() and _ours_or_empty(p))
    )


def _saved_best(model_dir: Path) -> Path | None:
    """``model_dir/best`` (or the aside copy a crash left) when a run saved it; ``None`` otherwise."""
    best = model_dir / "best"
    return best if best.is_symlink() or _saved_by_a_run(resolve_saved(best)) else None


def clear_checkpoints(model_dir: Path) -> list[Path]:
    """Removes ``best/`` and every numbered checkpoint of ``model_dir`` (each with
    `remove_checkpoint`; a link is unlinked, what it points to untouched), to start a new run there;
    returns what was removed."""
    best = _saved_best(model_dir)
    doomed = [
        *_numbered_entries(model_dir),
        *([best] if best is not None and (best.exists() or best.is_symlink()) else []),
    ]
    for path in doomed:
        if path.is_symlink():
            path.unlink()
        else:
            remove_checkpoint(path)
    return doomed
