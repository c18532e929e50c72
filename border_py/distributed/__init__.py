"""Asynchronous training on Ray: one learner, many actors (the ``distributed`` extra).

- :class:`AsyncTrainer` and :class:`AsyncConfig`: the learner's side, over the same bookkeeping core as
  :class:`~border_py.Trainer` (evaluation, ``best/``, records, checkpoints, stopping, interrupts).
- :class:`RateLimiter`: the samples-per-insert control (pure Python).
- :class:`~border_py.distributed.actor.ActorWorker`: what runs in each actor process.

``import border_py.distributed`` does not import ray; training does.
"""

from border_py.distributed.config import AsyncConfig
from border_py.distributed.limiter import RateLimiter
from border_py.distributed.trainer import AsyncTrainer, ray_session

__all__ = ["AsyncConfig", "AsyncTrainer", "RateLimiter", "ray_session"]
