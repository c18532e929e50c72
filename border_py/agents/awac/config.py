"""Config of the AWAC agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.awac.agent import Awac
    from border_py.agents.offline_base import ObsStats

from border_py.agents.cnn_config import MultiInputConfig, without_normalize_obs
from border_py.agents.devices import device_name
from border_py.config import layer_sizes, positive_finite


@attrs.frozen(kw_only=True)
class AwacConfig:
    """Config of `Awac`; the defaults are CORL's.

    The discount is not here: each transition carries its own (the dataset's ``gamma``).

    Examples:
        >>> AwacConfig().lam
        1.0
    """

    actor_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: the policy network's hidden layers."""
    critic_hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: each Q-network's hidden layers."""
    actor_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the policy."""
    critic_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the Q-networks."""
    batch_size: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In transitions per opt step."""
    tau: float = attrs.field(default=0.005, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: Polyak factor of the target Q-networks, applied after every update."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; targets and advantages use their minimum."""
    lam: float = attrs.field(default=1.0, validator=positive_finite)
    """In value units: the temperature of the advantage weights ``exp(A / lam)``."""
    max_weight: float = attrs.field(default=100.0, validator=positive_finite)
    """Unitless: the advantage weights are clipped to this."""
    normalize_obs: bool = False
    """Normalise observations with the dataset's statistics (given to the agent, saved with it)."""
    encoder: MultiInputConfig | None = attrs.field(default=None, validator=without_normalize_obs)
    """A dict observation with images (``{kind: multi_input}``): the policy and the critics each put a
    multi-input encoder of their own in front of their layers (a CNN per image part; the critics of the
    ensemble share one); ``None``: the flat observation. Not with ``normalize_obs``: the encoder scales the
    pixels itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None) -> Awac:
        """The agent, sized by ``spaces``, with initial weights from ``seed``; ``obs_stats``: the dataset's
        observation mean and std (`border_py.datasets.observation_stats`), used with ``normalize_obs``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.awac.agent import Awac  # the agent module imports this one

        return Awac(self, spaces, seed, obs_stats)
