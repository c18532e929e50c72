"""The IQN agent's config (its quantile-fraction sampling: `border_py.agents.iqn.taus`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.iqn.agent import Iqn

from border_py.agents.iqn.taus import EvenTaus, TauSampling, UniformTaus
from border_py.agents.q_config import DeepQConfig
from border_py.config import layer_sizes, positive_finite, unit_counts


@attrs.frozen(kw_only=True)
class IqnConfig(DeepQConfig):
    """Config of `Iqn`: `DeepQConfig`'s fields (the optimiser, the batch, the target, the explorer, the
    encoder) and the quantile network's and loss's.

    The network is ``Z(s, tau) = f(psi(s) * phi(tau))``: ``psi`` an MLP to ``embed_dim`` units, ``phi`` a
    linear layer over ``cos(pi i tau)`` for ``i = 0 .. n_cos - 1``, ``f`` an MLP to one quantile per action.
    The discount is not here: each transition carries its own, set by the step processor.

    Examples:
        >>> from border_py.agents import FixedTaus
        >>> IqnConfig(act_taus=FixedTaus(taus=(0.25,))).pred_taus
        UniformTaus(kind='uniform', n=8)
    """

    hidden: tuple[int, ...] = attrs.field(default=(128,), validator=unit_counts)
    """In units: hidden layers of ``psi`` (observation features) before its ``embed_dim`` output; none
    makes ``psi`` one linear layer (on the CNN's features, with an ``encoder``)."""
    embed_dim: int = attrs.field(default=128, validator=attrs.validators.gt(0))
    """In units: the size of the state and quantile embeddings that are multiplied."""
    n_cos: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """How many cosine features embed a fraction."""
    head_hidden: tuple[int, ...] = attrs.field(default=(128,), validator=layer_sizes)
    """In units: hidden layers of ``f``, from the product to the per-action quantiles."""
    pred_taus: TauSampling = attrs.field(factory=UniformTaus)
    """Fractions of the predicted quantiles in the loss (N in the paper)."""
    target_taus: TauSampling = attrs.field(factory=UniformTaus)
    """Fractions of the target quantiles in the loss (N')."""
    act_taus: TauSampling = attrs.field(factory=EvenTaus)
    """Fractions whose quantiles are averaged to pick the greedy action (K); ``even`` keeps eval
    deterministic."""
    kappa: float = attrs.field(default=1.0, validator=positive_finite)
    """In return units: the Huber threshold of the quantile Huber loss."""

    def build(self, spaces: Spaces, seed: int) -> Iqn:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.iqn.agent import Iqn  # the agent module imports this one

        return Iqn(self, spaces, seed)
