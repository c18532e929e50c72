"""Configs of the DQN agent and its explorers."""

from __future__ import annotations

from typing import Literal

import attrs

_unit = [attrs.validators.ge(0.0), attrs.validators.le(1.0)]


@attrs.frozen(kw_only=True)
class EpsilonGreedyConfig:
    """Epsilon-greedy exploration with a linear schedule.

    Epsilon goes linearly from ``eps_start`` to ``eps_final`` over ``final_step`` actions sampled in train
    mode (one per env step), then stays at ``eps_final``. Eval mode never explores.
    """

    kind: Literal["epsilon_greedy"] = "epsilon_greedy"
    eps_start: float = attrs.field(default=1.0, validator=_unit)
    """Probability of a random action at the first env step."""
    eps_final: float = attrs.field(default=0.05, validator=_unit)
    """Probability of a random action from ``final_step`` on."""
    final_step: int = attrs.field(default=10_000, validator=attrs.validators.ge(0))
    """In env steps (actions sampled in train mode): where the linear schedule ends."""


@attrs.frozen(kw_only=True)
class SoftmaxConfig:
    """Boltzmann exploration: sample an action with probability ``softmax(q / temperature)``."""

    kind: Literal["softmax"] = "softmax"
    temperature: float = attrs.field(default=1.0, validator=attrs.validators.gt(0.0))
    """In Q-value units: higher is more random."""


@attrs.frozen(kw_only=True)
class DqnConfig:
    """Config of :class:`~border_py.agents.dqn.Dqn`.

    Example:
        >>> DqnConfig(hidden=(256, 256), double_dqn=True).loss
        'huber'
    """

    hidden: tuple[int, ...] = attrs.field(
        default=(64, 64), validator=attrs.validators.deep_iterable(attrs.validators.gt(0))
    )
    """In units: widths of the Q-network's hidden layers."""
    lr: float = attrs.field(default=1e-3, validator=attrs.validators.gt(0.0))
    """Adam learning rate."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    gamma: float = attrs.field(default=0.99, validator=[attrs.validators.ge(0.0), attrs.validators.le(1.0)])
    """Discount factor per env step."""
    tau: float = attrs.field(default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Target update ``target <- tau * online + (1 - tau) * target``: 1.0 is a hard copy, < 1 Polyak."""
    target_update_interval: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """In opt steps: how often the target network is updated."""
    double_dqn: bool = False
    """Pick the next action with the online network and value it with the target (van Hasselt et al.)."""
    loss: Literal["mse", "huber"] = "huber"
    """TD loss: squared error or Huber (smooth L1 with delta 1)."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0.0))
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    explorer: EpsilonGreedyConfig | SoftmaxConfig = attrs.field(factory=EpsilonGreedyConfig)
    """How actions are explored in train mode."""
    device: str = "cpu"
    """Torch device of the networks (``cpu``, ``cuda``)."""
