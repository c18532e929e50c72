"""What a run checks before it starts, each refusal naming the fields: the agent's batch against the
buffer, a rollout buffer's shape against the schedule and the env, and a budget that leaves something to
do (an update, an evaluation); and the online schedule they reason with (`opts_due`).
"""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

from border_py.trainer.config import TrainerConfig


@runtime_checkable
class HasBatchSize(Protocol):
    """An agent that learns from batches of ``batch_size`` items."""

    @property
    def batch_size(self) -> int:
        """In items per batch."""
        ...


@runtime_checkable
class HasCapacity(Protocol):
    """A buffer config with a ``capacity`` in items."""

    @property
    def capacity(self) -> int:
        """In items: the most the buffer holds."""
        ...


@runtime_checkable
class HasRolloutShape(Protocol):
    """A buffer config that holds one rollout of ``n_steps`` steps of ``num_envs`` sub-envs."""

    @property
    def num_envs(self) -> int:
        """The number of sub-envs a rollout spans."""
        ...

    @property
    def rollout_size(self) -> int:
        """In env steps: ``n_steps * num_envs``."""
        ...


def check_rollout_fits(config: TrainerConfig, buffer_config: object, num_envs: int) -> None:
    """Checks that a rollout buffer's shape matches the schedule and the env: one opt step per rollout
    (``opt_interval`` = the rollout size, no warm-up) and one column per sub-env.

    Raises:
        ValueError: the message names the fields.
    """
    if not isinstance(buffer_config, HasRolloutShape):
        return
    size = buffer_config.rollout_size
    if config.opt_interval != size or config.warmup_period != 0:
        raise ValueError(
            f"TrainerConfig.opt_interval ({config.opt_interval}) and warmup_period ({config.warmup_period}) "
            f"must be the rollout's size ({size} = n_steps * num_envs) and 0: an on-policy agent learns "
            "from each whole rollout once"
        )
    if buffer_config.num_envs != num_envs:
        raise ValueError(
            f"replay_buffer.num_envs ({buffer_config.num_envs}) differs from the env's number of sub-envs "
            f"({num_envs})"
        )


def check_agent_fits(
    config: TrainerConfig, agent: object, buffer_config: object, evaluator: object | None
) -> None:
    """Checks before anything runs what would otherwise fail late or hang: an evaluator for
    ``eval_interval``, and a batch no larger than the buffer can ever hold.

    Raises:
        ValueError: the message names the fields.
    """
    if config.eval_every is not None and evaluator is None:
        raise ValueError(f"{config.eval_field} is set but train() got no evaluator")
    if (
        isinstance(agent, HasBatchSize)
        and isinstance(buffer_config, HasCapacity)
        and agent.batch_size > buffer_config.capacity
    ):
        raise ValueError(
            f"agent.batch_size ({agent.batch_size}) is larger than replay_buffer.capacity "
            f"({buffer_config.capacity}): the buffer can never hold a batch, so the agent would never "
            "take an opt step"
        )


def opts_due(before: int, after: int, warmup_end: int, opt_interval: int) -> int:
    """How many opt steps the env steps ``before + 1 .. after`` call for: one per multiple of
    ``opt_interval`` past ``warmup_end`` (one env step at a time: 1 or 0; a vector env takes several).

    Examples:
        >>> opts_due(9, 10, warmup_end=0, opt_interval=2), opts_due(0, 16, warmup_end=4, opt_interval=4)
        (1, 3)
    """
    lo = max(before, warmup_end)
    return max(0, after // opt_interval - lo // opt_interval) if after > lo else 0


def check_budget(config: TrainerConfig, evaluating: bool, books: dict[str, Any] | None) -> None:
    """Refuses a budget that leaves nothing to do: a resumed run (``books``: its checkpoint's counters)
    already at ``max_opts`` or ``max_env_steps``; a new one whose ``max_env_steps`` ends before the first
    update (``warmup_period``) or, ``evaluating``, whose reachable opt steps end before the first
    evaluation (no evaluation would run and no ``best/`` be saved).

    Raises:
        ValueError: the message names the fields and what to raise.
    """
    if books is not None:
        for field, count in (("max_opts", "opt_steps"), ("max_env_steps", "env_steps")):
            limit = getattr(config, field)
            if limit is not None and books[count] >= limit:
                raise ValueError(
                    f"the run is at {count.replace('_', ' ')} {books[count]} already and trainer.{field} is "
                    f"{limit}: it would train nothing; raise trainer.{field}"
                )
        return
    reachable = math.inf if config.max_opts is None else config.max_opts
    if config.max_env_steps is not None:
        updates = opts_due(0, config.max_env_steps, config.warmup_period, config.opt_interval)
        if updates == 0:
            raise ValueError(
                f"trainer.max_env_steps ({config.max_env_steps}) ends before the first update: "
                f"trainer.warmup_period is {config.warmup_period} env steps and an update follows every "
                f"trainer.opt_interval ({config.opt_interval}); raise max_env_steps or lower warmup_period"
            )
        reachable = min(reachable, updates)
    every = config.eval_every
    if evaluating and every is not None and reachable < every:
        raise ValueError(
            f"the budget allows at most {reachable} opt steps (trainer.max_opts {config.max_opts}, "
            f"trainer.max_env_steps {config.max_env_steps}), fewer than {config.eval_field} asks "
            f"({_interval(config, every)}): no evaluation would run and no best/ be saved; "
            f"{_budget_fix(config, every, int(reachable))}"
        )


def _interval(config: TrainerConfig, every: int) -> str:
    """The evaluation interval ``every`` in opt steps, and in env steps where an opt step is several."""
    if config.opt_interval == 1:
        return f"{every} opt steps"
    return f"{every} opt steps of {config.opt_interval} env steps: {every * config.opt_interval} env steps"


def _budget_fix(config: TrainerConfig, eval_interval: int, reachable: int) -> str:
    """What would let the first evaluation run, in each field's units: the budget it needs (in env steps
    where an opt step is several of them, as a rollout is) or the evaluation interval the budget allows."""
    if config.max_opts is not None and config.max_opts < eval_interval:
        needed = f"trainer.max_opts={eval_interval}"
    else:
        needed = f"trainer.max_env_steps={config.warmup_period + eval_interval * config.opt_interval}"
        needed += f", an opt step every {config.opt_interval} env steps" if config.opt_interval > 1 else ""
    if config.eval_interval_env_steps is not None:
        lower = f"trainer.eval_interval_env_steps (to {max(1, reachable) * config.opt_interval} or fewer)"
    else:
        lower = f"trainer.eval_interval (to {max(1, reachable)} or fewer)"
    return f"raise the budget ({needed}) or lower {lower}"
