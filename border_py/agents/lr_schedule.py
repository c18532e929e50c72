"""Linear learning-rate schedules in opt steps, for the off-policy agents (SAC, TQC, CrossQ, TD3, DQN,
QR-DQN, IQN): the configs' fields and their check, and the rates each opt step sets.

RL Zoo's ``lin_X`` is X falling linearly to 0 over the run. The on-policy agents count it in env steps
(they learn from whole rollouts); an off-policy agent sees only its opt steps, so its schedule counts those:
opt step ``k`` (from 0) trains at ``X * (1 - min(k, horizon) / horizon)``. The agent's ``opt_steps`` is in
every checkpoint, so a resumed run continues the schedule exactly, and older checkpoints have it too.

Torch-free: the configs import it (an optimiser is only annotated here).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import torch

__all__ = ["LrSchedule", "ScheduledLrConfig", "check_lr_schedule", "linear_horizon", "set_scheduled_lrs"]

LrSchedule = Literal["constant", "linear"]
"""``constant``: the configured rates throughout; ``linear``: they fall to 0 over ``schedule_opt_steps``."""


@runtime_checkable
class ScheduledLrConfig(Protocol):
    """A config with a learning-rate schedule (`DeepQConfig`, `SoftActorCriticConfig`, `Td3Config`; a
    config of your own with these two fields gets the schedule from `ValueBasedAgent` too)."""

    @property
    def lr_schedule(self) -> LrSchedule:
        """``constant`` or ``linear``."""
        ...

    @property
    def schedule_opt_steps(self) -> int | None:
        """In opt steps: where a linear schedule reaches 0."""
        ...


def check_lr_schedule(schedule: LrSchedule, horizon: int | None) -> None:
    """Refuses a linear schedule without its horizon.

    Raises:
        ValueError: ``schedule`` is ``linear`` and ``horizon`` is ``None``.
    """
    if schedule == "linear" and horizon is None:
        raise ValueError(
            "a linear lr_schedule needs schedule_opt_steps (in opt steps: where the learning rates reach 0)"
        )


def linear_horizon(config: object) -> int | None:
    """In opt steps: where ``config``'s linear learning-rate schedule reaches 0; ``None`` where its rates
    are constant (or it has no ``lr_schedule``)."""
    if isinstance(config, ScheduledLrConfig) and config.lr_schedule == "linear":
        return config.schedule_opt_steps
    return None


def set_scheduled_lrs(
    horizon: int, opt_steps: int, rates: Iterable[tuple[torch.optim.Optimizer, float]]
) -> float:
    """Sets each optimiser of ``rates`` to its rate (at the schedule's start) times what the linear
    schedule keeps at opt step ``opt_steps`` (from 0); returns that fraction.

    Examples:
        >>> set_scheduled_lrs(100, 25, []), set_scheduled_lrs(100, 150, [])
        (0.75, 0.0)
    """
    remaining = 1.0 - min(opt_steps, horizon) / horizon
    for optimizer, lr in rates:
        for group in optimizer.param_groups:
            group["lr"] = lr * remaining
    return remaining
