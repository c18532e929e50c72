"""How IQN chooses its quantile fractions: sampled uniformly, evenly spaced, or given."""

from __future__ import annotations

from typing import Literal

import attrs


def _fractions(
    instance: object, attribute: attrs.Attribute[tuple[float, ...]], value: tuple[float, ...]
) -> None:
    if not value or not all(0.0 < t < 1.0 for t in value):
        raise ValueError(f"'{attribute.name}' must be a non-empty list of fractions in (0, 1), got {value}")


@attrs.frozen(kw_only=True)
class UniformTaus:
    """``n`` fractions drawn uniformly from (0, 1) for each batch item, anew at every use (the IQN paper)."""

    kind: Literal["uniform"] = "uniform"
    n: int = attrs.field(default=8, validator=attrs.validators.gt(0))
    """How many fractions per batch item."""


@attrs.frozen(kw_only=True)
class EvenTaus:
    """The ``n`` midpoints ``(i + 0.5) / n``: deterministic, and their mean quantile approximates the mean
    of the return distribution."""

    kind: Literal["even"] = "even"
    n: int = attrs.field(default=32, validator=attrs.validators.gt(0))
    """How many fractions."""


@attrs.frozen(kw_only=True)
class FixedTaus:
    """The given fractions, e.g. ``(0.1, 0.2)`` for a risk-averse policy that acts on low quantiles."""

    kind: Literal["fixed"] = "fixed"
    taus: tuple[float, ...] = attrs.field(validator=_fractions)
    """The fractions, each in (0, 1)."""


TauSampling = UniformTaus | EvenTaus | FixedTaus
"""How quantile fractions are chosen."""
