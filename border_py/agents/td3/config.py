"""Config of the TD3 agent (DDPG is a configuration of it: `Td3Config.ddpg`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

from border_py.agents.cnn_config import MultiInputConfig
from border_py.agents.devices import device_name
from border_py.agents.lr_schedule import check_lr_schedule
from border_py.base.spaces import Spaces
from border_py.config import layer_sizes, positive_finite

if TYPE_CHECKING:
    from border_py.agents.td3.agent import Td3


def _non_negative(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not 0.0 <= value < float("inf"):
        raise ValueError(f"'{attribute.name}' must be finite and >= 0: {value}")


@attrs.frozen(kw_only=True)
class Td3Config:
    """Config of `Td3`; the defaults are Fujimoto et al.'s TD3 (and SB3's).

    Noises are in half action ranges: a std of 0.1 on a ``[-2, 2]`` action is 0.2. The discount is the
    step processor's, carried by each transition; action bounds come from the env's Box action space.

    Examples:
        >>> Td3Config().policy_delay, Td3Config.ddpg().n_critics
        (2, 1)
    """

    actor_hidden: tuple[int, ...] = attrs.field(default=(400, 300), validator=layer_sizes)
    """In units: widths of the policy network's hidden layers."""
    critic_hidden: tuple[int, ...] = attrs.field(default=(400, 300), validator=layer_sizes)
    """In units: widths of each critic's hidden layers."""
    actor_lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate of the policy (at the start of a linear ``lr_schedule``)."""
    critic_lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate of the critics (at the start of a linear ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: both learning rates (SB3's one schedule for its optimisers) fall linearly to 0 over
    ``schedule_opt_steps``; the configured ones are where they start."""
    schedule_opt_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In opt steps: where the linear schedule reaches 0 (the run's budget in opt steps); needed by it.
    Opt step ``k`` (from 0) trains at ``lr * (1 - min(k, schedule_opt_steps) / schedule_opt_steps)``."""
    batch_size: int = attrs.field(default=256, validator=attrs.validators.gt(0))
    """In transitions per update. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    tau: float = attrs.field(default=0.005, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Unitless: Polyak factor of the target networks, applied after each policy update."""
    n_critics: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """How many Q-networks: TD3's twin critics (their minimum in the target), DDPG's one."""
    policy_delay: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    """In critic updates: the policy and the targets move once every this many (TD3: 2; DDPG: 1)."""
    target_noise: float = attrs.field(default=0.2, validator=_non_negative)
    """Target policy smoothing: the std of the Gaussian noise added to the target action (0: none)."""
    target_noise_clip: float = attrs.field(default=0.5, validator=_non_negative)
    """The smoothing noise is clipped to ``[-target_noise_clip, target_noise_clip]`` (half action ranges)."""
    exploration: Literal["gaussian", "ou"] = "gaussian"
    """Train-mode action noise: independent Gaussian, or Ornstein-Uhlenbeck (DDPG's: 0 at each episode's
    start, in each sub-env, as SB3 resets its action noise; it forgets within about ``1 / ou_theta``
    steps). Its step is border_py's, one unit of time per env step: SB3's ``dt = 0.01`` is
    ``ou_theta = 0.15 * 0.01`` and ``exploration_std = sigma * sqrt(0.01)`` here (the zoo's RL Zoo entries
    are translated so)."""
    exploration_std: float = attrs.field(default=0.1, validator=_non_negative)
    """The exploration noise's std (OU: its sigma)."""
    ou_theta: float = attrs.field(default=0.15, validator=positive_finite)
    """OU's mean-reversion rate per env step."""
    n_updates_per_opt: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    """Critic updates (each on its own batch) per ``opt`` call."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip each network's gradient L2 norm to this; ``None``: no clipping."""
    encoder: MultiInputConfig | None = None
    """A dict observation with images (``{kind: multi_input}``): the policy and the critics each put a
    multi-input encoder of their own in front of their layers (a CNN per image part; SB3's off-policy
    ``MultiInputPolicy``, whose actor and critics do not share theirs); ``None``: the flat observation."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""

    def __attrs_post_init__(self) -> None:
        check_lr_schedule(self.lr_schedule, self.schedule_opt_steps)

    @classmethod
    def ddpg(cls, **changes: object) -> Td3Config:
        """DDPG (Lillicrap et al., 2016) as TD3 without its three changes: one critic, no target policy
        smoothing, no policy delay; Ornstein-Uhlenbeck exploration."""
        base: dict[str, object] = {
            "n_critics": 1,
            "policy_delay": 1,
            "target_noise": 0.0,
            "exploration": "ou",
        }
        return cls(**{**base, **changes})  # type: ignore[arg-type]

    def build(self, spaces: Spaces, seed: int) -> Td3:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.td3.agent import Td3  # the agent module imports this one

        return Td3(self, spaces, seed)
