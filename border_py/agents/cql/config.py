"""Config of the CQL agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.cnn_config import MultiInputConfig, without_normalize_obs
from border_py.agents.devices import device_name
from border_py.base.spaces import Spaces
from border_py.config import finite, layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.cql.agent import Cql
    from border_py.agents.offline_base import ObsStats


@attrs.frozen(kw_only=True)
class CqlConfig:
    """Config of `Cql`; the defaults are CORL's for the D4RL locomotion tasks.

    The discount is not here: each transition carries its own (the dataset's ``gamma``).

    Examples:
        >>> CqlConfig().cql_alpha, CqlConfig().target_action_gap is None
        (10.0, True)
    """

    actor_hidden: tuple[int, ...] = attrs.field(default=(256, 256, 256), validator=layer_sizes)
    """In units: the tanh-Gaussian policy network's hidden layers."""
    critic_hidden: tuple[int, ...] = attrs.field(default=(256, 256, 256), validator=layer_sizes)
    """In units: each Q-network's hidden layers."""
    actor_lr: float = attrs.field(default=3e-5, validator=positive_finite)
    """Adam learning rate of the policy (and of the entropy coefficient)."""
    critic_lr: float = attrs.field(default=3e-4, validator=positive_finite)
    """Adam learning rate of the Q-networks (and of the Lagrangian's coefficient)."""
    batch_size: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In transitions per opt step."""
    tau: float = attrs.field(default=0.005, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: Polyak factor of the target critics, after every update."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks; targets and the policy use their minimum."""
    init_alpha: float = attrs.field(default=1.0, validator=positive_finite)
    """The entropy coefficient's initial value."""
    auto_alpha: bool = True
    """Tune the entropy coefficient towards ``target_entropy``."""
    target_entropy: float | None = attrs.field(default=None, validator=finite)
    """In nats; ``None``: ``-act_dim``."""
    backup_entropy: bool = False
    """Subtract ``alpha log pi(a'|s')`` in the TD target (SAC's soft backup); CORL does not."""
    n_actions: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """Actions sampled per state and per source (uniform, the policy at ``s``, the policy at ``s'``)."""
    temperature: float = attrs.field(default=1.0, validator=positive_finite)
    """Of the log-sum-exp over the sampled actions."""
    cql_alpha: float = attrs.field(default=10.0, validator=positive_finite)
    """Unitless: the conservative penalty's weight against the TD error."""
    target_action_gap: float | None = attrs.field(default=None, validator=finite)
    """``None``: the penalty's weight is ``cql_alpha``; a value: the Lagrangian variant, which scales the
    weight by a learned ``alpha'`` that grows while the gap exceeds this value and shrinks below it."""
    log_std_min: float = attrs.field(default=-20.0, validator=finite)
    """Lower clamp of the policy's log standard deviation."""
    log_std_max: float = attrs.field(default=2.0, validator=finite)
    """Upper clamp of the policy's log standard deviation."""
    normalize_obs: bool = True
    """Normalise observations with the dataset's statistics (given to the agent, saved with it)."""
    encoder: MultiInputConfig | None = attrs.field(default=None, validator=without_normalize_obs)
    """A dict observation with images (``{kind: multi_input}``): the policy and the critics each put a
    multi-input encoder of their own in front of their layers (a CNN per image part; the critics of the
    ensemble share one); ``None``: the flat observation. Not with ``normalize_obs``: the encoder scales the
    pixels itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    @log_std_max.validator
    def _check_log_std(self, attribute: attrs.Attribute[float], value: float) -> None:
        if value <= self.log_std_min:
            raise ValueError(f"log_std_max ({value}) must be above log_std_min ({self.log_std_min})")

    def build(self, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None) -> Cql:
        """The agent, sized by ``spaces``, with initial weights from ``seed``; ``obs_stats``: the dataset's
        observation mean and std, used with ``normalize_obs``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.cql.agent import Cql  # the agent module imports this one

        return Cql(self, spaces, seed, obs_stats)
