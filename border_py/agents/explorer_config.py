"""The explorers' configs (DQN's, QR-DQN's and IQN's ``explorer`` field), apart from the explorers
(`border_py.agents.explorers`, which act on tensors) so that an agent's config imports no torch."""

from __future__ import annotations

from typing import Literal

import attrs

from border_py.config import positive_finite, unit_interval

__all__ = ["EpsilonGreedyConfig", "SoftmaxConfig"]


@attrs.frozen(kw_only=True)
class EpsilonGreedyConfig:
    """Epsilon-greedy exploration with a linear schedule.

    Epsilon goes linearly from ``eps_start`` to ``eps_final`` over ``final_step`` actions sampled in train
    mode (one per env step), then stays at ``eps_final``. Eval mode never explores.
    """

    kind: Literal["epsilon_greedy"] = "epsilon_greedy"
    eps_start: float = attrs.field(default=1.0, validator=unit_interval)
    """Probability of a random action at the first env step."""
    eps_final: float = attrs.field(default=0.05, validator=unit_interval)
    """Probability of a random action from ``final_step`` on."""
    final_step: int = attrs.field(default=10_000, validator=attrs.validators.ge(0))
    """In env steps (actions sampled in train mode): where the linear schedule ends."""


@attrs.frozen(kw_only=True)
class SoftmaxConfig:
    """Boltzmann exploration: sample an action with probability ``softmax(q / temperature)``."""

    kind: Literal["softmax"] = "softmax"
    temperature: float = attrs.field(default=1.0, validator=positive_finite)
    """In Q-value units: higher is more random."""
