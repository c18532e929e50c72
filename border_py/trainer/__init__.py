"""Training: one bookkeeping core, one loop, a regime for each way items arrive.

- `config`: ``TrainerConfig``, the schedule every regime shares.
- `bookkeeper`: ``Bookkeeper``, what happens after each opt step (evaluation,
  best model, records, periodic saves, stopping).
- `loop`: the one loop and the ``Regime`` seam.
- `online`: ``Trainer[E, P, R]``, online training, with
  `sampler` (``SyncSampler``) beside it and `sub_envs` (what it keeps of a vector env's sub-envs
  for an exact resume).
- `offline`: ``OfflineTrainer``, training on a fixed dataset.
- `state`: the checkpoint's trainer state (JSON) and the resume checks.
- `interrupts`: SIGINT and SIGTERM.
- `result`: ``TrainResult``.

Names are imported on first use: ``import border_py.trainer.config`` (what an experiment names) or
``border_py.trainer.interrupts`` (what the CLI catches) imports no torch; the loop and the regimes do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.trainer.bookkeeper import Bookkeeper
    from border_py.trainer.checks import opts_due
    from border_py.trainer.config import TrainerConfig
    from border_py.trainer.interrupts import ExperienceSourceError, TrainingInterrupted, TrainingStalledError
    from border_py.trainer.loop import PreparedRun, Regime
    from border_py.trainer.offline import OfflineTrainer
    from border_py.trainer.online import Trainer, TrainerOf
    from border_py.trainer.result import Evaluation, EvaluationObserver, StopReason, TrainResult
    from border_py.trainer.sampler import ResumeWarning, SyncSampler

_EXPORTS: dict[str, str] = {
    "Bookkeeper": "border_py.trainer.bookkeeper",
    "opts_due": "border_py.trainer.checks",
    "TrainerConfig": "border_py.trainer.config",
    "ExperienceSourceError": "border_py.trainer.interrupts",
    "TrainingInterrupted": "border_py.trainer.interrupts",
    "TrainingStalledError": "border_py.trainer.interrupts",
    "PreparedRun": "border_py.trainer.loop",
    "Regime": "border_py.trainer.loop",
    "OfflineTrainer": "border_py.trainer.offline",
    "Trainer": "border_py.trainer.online",
    "TrainerOf": "border_py.trainer.online",
    "Evaluation": "border_py.trainer.result",
    "EvaluationObserver": "border_py.trainer.result",
    "StopReason": "border_py.trainer.result",
    "TrainResult": "border_py.trainer.result",
    "ResumeWarning": "border_py.trainer.sampler",
    "SyncSampler": "border_py.trainer.sampler",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


__all__ = [
    "Bookkeeper",
    "Evaluation",
    "EvaluationObserver",
    "ExperienceSourceError",
    "OfflineTrainer",
    "PreparedRun",
    "Regime",
    "ResumeWarning",
    "StopReason",
    "SyncSampler",
    "TrainResult",
    "Trainer",
    "TrainerConfig",
    "TrainerOf",
    "TrainingInterrupted",
    "TrainingStalledError",
    "opts_due",
]
