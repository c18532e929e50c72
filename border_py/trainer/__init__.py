"""Training: one bookkeeping core, one loop, a regime for each way items arrive.

- `config`: ``TrainerConfig``, the schedule every regime shares.
- `bookkeeper`: ``Bookkeeper``, what happens after each opt step (evaluation,
  best model, records, periodic saves, stopping).
- `loop`: the one loop and the ``Regime`` seam.
- `online`: ``Trainer[E, P, R]``, online training, with
  `sampler` (``SyncSampler``) beside it.
- `offline`: ``OfflineTrainer``, training on a fixed dataset.
- `state`: the checkpoint's trainer state (JSON) and the resume checks.
- `interrupts`: SIGINT and SIGTERM.
- `result`: ``TrainResult``.
"""

from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.checks import opts_due
from border_py.trainer.config import TrainerConfig
from border_py.trainer.interrupts import ExperienceSourceError, TrainingInterrupted, TrainingStalledError
from border_py.trainer.loop import PreparedRun, Regime
from border_py.trainer.offline import OfflineTrainer
from border_py.trainer.online import Trainer, TrainerOf
from border_py.trainer.result import Evaluation, EvaluationObserver, StopReason, TrainResult
from border_py.trainer.sampler import ResumeWarning, SyncSampler

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
