"""Asynchronous training on Ray: one learner, many actors (the ``distributed`` extra).

- `AsyncTrainer` and `AsyncConfig`: the learner's side, over the same bookkeeping core as
  `Trainer` (evaluation, ``best/``, records, checkpoints, stopping, interrupts).
- `RateLimiter`: the samples-per-insert control (pure Python).
- `ActorWorker`: what runs in each actor process.

``import border_py.distributed`` does not import ray; training does.
"""

from border_py.distributed.config import AsyncConfig
from border_py.distributed.limiter import RateLimiter
from border_py.distributed.trainer import AsyncTrainer, ray_session

__all__ = ["AsyncConfig", "AsyncTrainer", "RateLimiter", "ray_session"]
