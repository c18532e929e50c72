"""Asynchronous training on Ray: one learner, many actors (the ``distributed`` extra).

- `AsyncTrainer` and `AsyncConfig`: the learner's side, over the same bookkeeping core as
  `Trainer` (evaluation, ``best/``, records, checkpoints, stopping, interrupts).
- `RateLimiter`: the samples-per-insert control (pure Python).
- `ActorWorker`: what runs in each actor process.

``import border_py.distributed`` does not import ray, nor torch: names are imported on first use
(``border_py.distributed.config``, what an experiment names, is plain attrs); training imports both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.distributed.config import AsyncConfig
    from border_py.distributed.limiter import RateLimiter
    from border_py.distributed.trainer import AsyncTrainer, ray_session

_EXPORTS: dict[str, str] = {
    "AsyncConfig": "border_py.distributed.config",
    "RateLimiter": "border_py.distributed.limiter",
    "AsyncTrainer": "border_py.distributed.trainer",
    "ray_session": "border_py.distributed.trainer",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


__all__ = ["AsyncConfig", "AsyncTrainer", "RateLimiter", "ray_session"]
