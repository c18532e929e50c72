"""Config of the TD3+BC agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.cnn_config import MultiInputConfig, without_normalize_obs
from border_py.agents.devices import device_name
from border_py.base.spaces import Spaces
from border_py.config import layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.offline_base import ObsStats
    from border_py.agents.td3bc.agent import Td3Bc


@attrs.frozen(kw_only=True)
class Td3BcConfig:
    """Config of `Td3Bc`; the defaults are the paper's and CORL's.

    Noises are in half action ranges. The discount is the dataset's, carried by each transition.

    Examples:
        >>> Td3BcConfig().alpha, Td3BcConfig().normalize_obs
        (2.5, True)
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
    """Unitless: Polyak factor of the target networks, applied after each policy update."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; the target uses their minimum, the policy the first."""
    policy_delay: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """In updates: the policy and the targets move once every this many."""
    target_noise: float = attrs.field(default=0.2, validator=attrs.validators.ge(0.0))
    """Target policy smoothing noise's std (half action ranges)."""
    target_noise_clip: float = attrs.field(default=0.5, validator=attrs.validators.ge(0.0))
    """The smoothing noise is clipped to ``[-target_noise_clip, target_noise_clip]``."""
    alpha: float = attrs.field(default=2.5, validator=positive_finite)
    """Unitless: the Q term's weight is ``alpha / mean |Q|`` against the behaviour-cloning MSE."""
    normalize_obs: bool = True
    """Normalise observations with the dataset's statistics (given to the agent, saved with it)."""
    encoder: MultiInputConfig | None = attrs.field(default=None, validator=without_normalize_obs)
    """A dict observation with images (``{kind: multi_input}``): the policy and the critics each put a
    multi-input encoder of their own in front of their layers (a CNN per image part; the critics of the
    ensemble share one); ``None``: the flat observation. Not with ``normalize_obs``: the encoder scales the
    pixels itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None) -> Td3Bc:
        """The agent, sized by ``spaces``, with initial weights from ``seed``; ``obs_stats``: the dataset's
        observation mean and std, used with ``normalize_obs``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.td3bc.agent import Td3Bc  # the agent module imports this one

        return Td3Bc(self, spaces, seed, obs_stats)
