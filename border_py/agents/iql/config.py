"""Config of the IQL agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.iql.agent import Iql
    from border_py.agents.offline_base import ObsStats

from border_py.agents.cnn_config import MultiInputConfig, without_normalize_obs
from border_py.agents.devices import device_name
from border_py.config import layer_sizes, positive_finite

_unit_open = [attrs.validators.gt(0.0), attrs.validators.lt(1.0)]


@attrs.frozen(kw_only=True)
class IqlConfig:
    """Config of `Iql`; the defaults are the paper's and CORL's for MuJoCo.

    The discount is not here: each transition carries its own (the dataset's ``gamma``).

    Examples:
        >>> IqlConfig().expectile
        0.7
    """

    actor_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: the policy network's hidden layers."""
    critic_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: each Q-network's and the value network's hidden layers."""
    actor_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the policy."""
    actor_lr_decay_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In opt steps: anneal the policy's learning rate from ``actor_lr`` to 0 along a cosine over this many
    updates, then hold it at 0 (the paper's and CORL's code anneal over their whole run); ``None`` keeps it
    constant."""
    critic_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the Q-networks and the value network."""
    batch_size: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In transitions per opt step."""
    tau: float = attrs.field(default=0.005, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: Polyak factor of the target Q-networks, applied after every update."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; the value and the advantage use their minimum."""
    expectile: float = attrs.field(default=0.7, validator=_unit_open)
    """Unitless: the expectile the value network regresses to (0.5 is the mean; towards 1, the max)."""
    temperature: float = attrs.field(default=3.0, validator=positive_finite)
    """Unitless: beta of the advantage weights ``exp(beta * A)``."""
    max_weight: float = attrs.field(default=100.0, validator=positive_finite)
    """Unitless: the advantage weights are clipped to this (the exponent's clip)."""
    normalize_obs: bool = False
    """Normalise observations with the dataset's statistics (given to the agent, saved with it)."""
    encoder: MultiInputConfig | None = attrs.field(default=None, validator=without_normalize_obs)
    """A dict observation with images (``{kind: multi_input}``): the policy, the critics and the value
    network each put a multi-input encoder of their own in front of their layers (a CNN per image part;
    the critics of the ensemble share one); ``None``: the flat observation. Not with ``normalize_obs``:
    the encoder scales the pixels itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None) -> Iql:
        """The agent, sized by ``spaces``, with initial weights from ``seed``; ``obs_stats``: the dataset's
        observation mean and std (`border_py.datasets.observation_stats`), used with ``normalize_obs``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.iql.agent import Iql  # the agent module imports this one

        return Iql(self, spaces, seed, obs_stats)
