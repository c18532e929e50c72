"""The IQN agent's config (its quantile-fraction sampling: `border_py.agents.iqn.taus`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.iqn.agent import Iqn

from border_py.agents.cnn import NatureCnnConfig
from border_py.agents.explorers import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.iqn.taus import EvenTaus, TauSampling, UniformTaus
from border_py.agents.toolkit import device_name
from border_py.config import layer_sizes, positive_finite, unit_counts


@attrs.frozen(kw_only=True)
class IqnConfig:
    """Config of `Iqn`.

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
    lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate."""
    adam_eps: float = attrs.field(default=1e-8, validator=positive_finite)
    """Adam's epsilon (the denominator's floor); Dopamine's Atari agents use 1.5e-4 to 3.125e-4."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    tau: float = attrs.field(default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Target update ``target <- tau * online + (1 - tau) * target``: 1.0 is a hard copy, < 1 Polyak."""
    target_update_interval: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """In opt steps: how often the target network is updated."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    explorer: EpsilonGreedyConfig | SoftmaxConfig = attrs.field(factory=EpsilonGreedyConfig)
    """How actions are explored in train mode (on the mean over ``act_taus`` quantiles)."""
    encoder: NatureCnnConfig | None = None
    """Pixel observations: the Nature CNN, whose features the ``hidden`` layers take; ``None``: the
    (flattened) observation itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int) -> Iqn:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.iqn.agent import Iqn  # the agent module imports this one

        return Iqn(self, spaces, seed)
