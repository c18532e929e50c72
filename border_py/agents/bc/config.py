"""Config of the behaviour cloning agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.bc.agent import Bc
    from border_py.agents.offline_base import ObsStats

from border_py.agents.cnn_config import MultiInputConfig, without_normalize_obs
from border_py.agents.devices import device_name
from border_py.config import layer_sizes, positive_finite


@attrs.frozen(kw_only=True)
class BcConfig:
    """Config of `Bc`; the defaults are d3rlpy's.

    Examples:
        >>> BcConfig(policy="gaussian").batch_size
        100
    """

    hidden: tuple[int, ...] = attrs.field(default=(256, 256), validator=layer_sizes)
    """In units: the policy network's hidden layers."""
    policy: Literal["deterministic", "gaussian"] = "deterministic"
    """For continuous actions: ``deterministic`` regresses the action (mean squared error);
    ``gaussian`` maximises the log-likelihood of a Gaussian (and acts with its mean). Discrete actions
    always use a Categorical (cross-entropy)."""
    lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate."""
    batch_size: int = attrs.field(default=100, validator=attrs.validators.gt(0))
    """In transitions per opt step."""
    normalize_obs: bool = False
    """Normalise observations with the dataset's statistics (given to the agent, saved with it)."""
    encoder: MultiInputConfig | None = attrs.field(default=None, validator=without_normalize_obs)
    """A dict observation with images (``{kind: multi_input}``): the policy puts a multi-input encoder
    in front of its layers (a CNN per image part; SB3's ``MultiInputPolicy``); ``None``: the flat
    observation. Not with ``normalize_obs``: the encoder scales the pixels itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def build(self, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None) -> Bc:
        """The agent, sized by ``spaces``, with initial weights from ``seed``; ``obs_stats``: the dataset's
        observation mean and std (`border_py.datasets.observation_stats`), used with ``normalize_obs``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.bc.agent import Bc  # the agent module imports this one

        return Bc(self, spaces, seed, obs_stats)
