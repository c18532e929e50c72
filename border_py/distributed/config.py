"""``AsyncConfig``: how many actors, how they are placed, and how tightly the learner and the actors are
held to the run's rate of opt steps per env step."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class AsyncConfig:
    """Config of `AsyncTrainer` (the trainer's own schedule stays in
    `TrainerConfig`: ``opt_interval`` is still env steps per opt step, and the rate
    limiter enforces it).

    The learner takes opt step ``k`` only once ``warmup_period + k * opt_interval`` env steps are in its
    buffer, as the synchronous trainer does; an actor gets more work only while the env steps inserted and
    in flight stay within ``tolerance`` opt steps of what the learner has trained on. So the ratio of
    samples to inserts (``batch_size / opt_interval``) is the same whatever the actors' speed, within
    ``tolerance``.
    """

    n_actors: int = attrs.field(default=2, validator=attrs.validators.gt(0))
    """How many actor processes (Ray actors), each with its own env, step processor and policy copy."""
    actor_steps: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In env steps: the work of one request to an actor (its items come back together)."""
    sync_interval: int = attrs.field(default=100, validator=attrs.validators.gt(0))
    """In opt steps: how often the learner publishes new policy weights (each publication a new version)."""
    tolerance: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In opt steps: how far the inserted env steps may run ahead of the learner. ``None``: one request per
    actor in flight, ``n_actors * actor_steps / opt_interval`` rounded up, plus one."""
    num_cpus_per_actor: float = attrs.field(default=1.0, validator=attrs.validators.ge(0.0))
    """Ray's ``num_cpus`` of each actor: where actors are placed and how many fit on a node."""
    max_restarts: int = attrs.field(default=3, validator=attrs.validators.ge(0))
    """How many times Ray restarts an actor that died (its process killed, or its env raised); one more
    death stops training with an error."""
    stuck_timeout: float = attrs.field(default=120.0, validator=attrs.validators.gt(0.0))
    """In seconds: a request unanswered this long has its actor killed and replaced by a new one (counted as
    a restart). Ray loses the request in flight of an actor killed before the driver has heard it is alive;
    without this, that actor would idle for the rest of the run. Keep it well above one request's time."""
    address: str | None = None
    """The Ray cluster to join (``auto``, ``ray://host:port`` or ``host:port``); ``None``: ``RAY_ADDRESS`` if
    set, else a local Ray started for the run (and stopped after it). An already initialised Ray session
    is used as it is."""

    def tolerance_for(self, opt_interval: int) -> int:
        """The tolerance in opt steps, with its default filled in.

        Raises:
            ValueError: ``tolerance`` is smaller than one request's opt steps plus one: the learner could
                wait for env steps that no actor may collect.
        """
        per_request = -(-self.actor_steps // opt_interval)
        if self.tolerance is None:
            return self.n_actors * per_request + 1
        if self.tolerance < per_request + 1:
            raise ValueError(
                f"AsyncConfig.tolerance ({self.tolerance} opt steps) must be at least one request's opt "
                f"steps plus one ({per_request} + 1: actor_steps {self.actor_steps} / opt_interval "
                f"{opt_interval}, rounded up): with less, the learner and the actors could wait on each other"
            )
        return self.tolerance
