"""``Spaces``: what an env declares and an agent is built from (observation shape, action space).

Every agent config builds its agent from a ``Spaces`` and a seed (``DqnConfig().build(spaces, seed)``), so an
experiment needs no hand-written factory: the run layer reads the evaluation env's ``spaces`` and passes
them on. Discrete actions are counted (``n_actions``); continuous ones are a box with finite bounds
(``action_low``, ``action_high``), the one way every continuous agent takes them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, overload

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.obs_parts import ObsParts

if TYPE_CHECKING:  # the agents' and the ONNX graph's masks are tensors; base itself never imports torch
    import torch

F32 = npt.NDArray[np.float32]

ACTION_MASK = "action_mask"
"""The dict observation part that flags the legal discrete actions (1 = legal), as Gymnasium's envs with
masks (and sb3-contrib's ``MaskablePPO``) name it."""


@overload
def legal_flags(rows: npt.NDArray[Any], mask: slice) -> npt.NDArray[np.bool_]: ...
@overload
def legal_flags(rows: torch.Tensor, mask: slice) -> torch.Tensor: ...
def legal_flags(rows: Any, mask: slice) -> Any:
    """The legal actions of flat observations ``rows`` ``(n, obs_dim)`` whose ``mask`` slice
    (`Spaces.action_mask`) flags them: a flag above 0.5 is legal, whatever its dtype. Every place that reads
    a mask (acting, the targets, the exports, the ONNX graph) reads it through this, numpy or torch alike.

    Examples:
        >>> legal_flags(np.array([[1.0, 0.0, 7.0]]), slice(0, 2)).tolist()
        [[True, False]]
    """
    return rows[:, mask] > 0.5


def _shape(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


def _bounds(value: Any) -> F32 | None:
    return None if value is None else np.asarray(value, dtype=np.float32).reshape(-1)


@attrs.frozen(kw_only=True, eq=False)
class Spaces:
    """An env's observation shape (and a dict observation's parts) and action space: discrete
    (``n_actions``) or a box (``action_low``, ``action_high``), exactly one.

    Raises:
        ValueError: both or neither action spaces, an empty or non-positive observation shape (or one
            that is not the dict observation's flat length),
            ``n_actions`` < 1, or box bounds of different shapes, not finite, or not ``low < high``.

    Examples:
        >>> Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]).action_dim
        1
        >>> Spaces(obs_shape=(4,), n_actions=2).discrete
        True
    """

    obs_shape: tuple[int, ...] = attrs.field(converter=_shape)
    """The shape of one observation (``(4,)`` for CartPole, ``(4, 84, 84)`` for stacked Atari frames)."""
    n_actions: int | None = None
    """The number of discrete actions; ``None`` for a box."""
    action_low: F32 | None = attrs.field(default=None, converter=_bounds)
    """The lower bounds of a box action space; ``None`` for discrete actions."""
    action_high: F32 | None = attrs.field(default=None, converter=_bounds)
    """The upper bounds of a box action space; ``None`` for discrete actions."""
    obs_parts: ObsParts | None = None
    """A dict observation's parts, laid out in the flat observation of ``obs_shape`` ``(obs_parts.dim,)``
    (`border_py.base.obs_parts`); ``None`` for an array observation."""

    def __attrs_post_init__(self) -> None:
        if not self.obs_shape or not all(isinstance(n, int) and n > 0 for n in self.obs_shape):
            raise ValueError(f"Spaces.obs_shape must be a non-empty shape of sizes > 0, got {self.obs_shape}")
        if self.obs_parts is not None and self.obs_shape != (self.obs_parts.dim,):
            raise ValueError(
                f"Spaces.obs_shape must be ({self.obs_parts.dim},), the length of the dict observation's "
                f"parts laid side by side, got {self.obs_shape}"
            )
        self._check_action_mask()
        box = self.action_low is not None or self.action_high is not None
        if (self.n_actions is None) == (not box):
            raise ValueError("Spaces takes n_actions (discrete) or action_low and action_high (a box)")
        if self.n_actions is not None and self.n_actions < 1:
            raise ValueError(f"Spaces.n_actions must be >= 1, got {self.n_actions}")
        if box:
            low, high = self.action_low, self.action_high
            if low is None or high is None or low.shape != high.shape:
                raise ValueError("Spaces.action_low and action_high must both be given, of one shape")
            if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high)) and np.all(high > low)):
                raise ValueError(f"Spaces: action bounds must be finite with low < high: {low}, {high}")

    def _check_action_mask(self) -> None:
        parts = self.obs_parts
        if parts is None or ACTION_MASK not in parts.keys:
            return
        shape = next(p.shape for p in parts.parts if p.key == ACTION_MASK)
        if self.n_actions is None or shape != (self.n_actions,):
            actions = "a box" if self.n_actions is None else f"{self.n_actions} discrete actions"
            raise ValueError(
                f"Spaces: the observation part {ACTION_MASK!r} must have shape (n_actions,), a flag per "
                f"discrete action; got {shape} for {actions}"
            )

    @property
    def action_mask(self) -> slice | None:
        """Where the legal-action mask lies in each flat observation: the dict observation's part
        ``action_mask`` (1 = legal), one flag per discrete action; ``None`` without one."""
        parts = self.obs_parts
        return parts.span(ACTION_MASK) if parts is not None and ACTION_MASK in parts.keys else None

    @property
    def obs_dim(self) -> int:
        """The number of observation components (the product of ``obs_shape``)."""
        return math.prod(self.obs_shape)

    @property
    def discrete(self) -> bool:
        """Whether actions are discrete."""
        return self.n_actions is not None

    @property
    def action_bounds(self) -> tuple[F32, F32]:
        """``(low, high)`` of a box action space.

        Raises:
            TypeError: the actions are discrete.
        """
        if self.action_low is None or self.action_high is None:
            raise TypeError(f"the env's actions are discrete ({self.n_actions}), not a box")
        return self.action_low, self.action_high

    @property
    def action_dim(self) -> int:
        """The number of action components of a box (1 for discrete actions)."""
        return 1 if self.action_low is None else int(self.action_low.size)

    def need_discrete(self, agent: str, *, masks: bool = False, images: bool = False) -> int:
        """``n_actions``, for an agent that acts only in discrete spaces; ``masks``: the agent never
        chooses an action the observation's ``action_mask`` forbids (else such an env is refused);
        ``images``: as `need_images`.

        Raises:
            TypeError: the actions are a box, or the env masks actions and the agent does not take masks,
                or `need_images` refuses; the message names ``agent``.
        """
        self.need_images(agent, images)
        if self.n_actions is None:
            raise TypeError(f"{agent} needs discrete actions; the env's are a box of {self.action_dim}")
        if self.action_mask is not None and not masks:
            raise TypeError(
                f"{agent} does not take action masks yet, and the env's observation has an "
                f"{ACTION_MASK!r} part: it would choose forbidden actions (DQN, QR-DQN, IQN, PPO and A2C "
                "take masks)"
            )
        return self.n_actions

    def need_box(self, agent: str, *, images: bool = False) -> tuple[F32, F32]:
        """``(low, high)``, for an agent that acts only in box spaces; ``images``: as `need_images`.

        Raises:
            TypeError: the actions are discrete, or `need_images` refuses; the message names ``agent``.
        """
        self.need_images(agent, images)
        if self.action_low is None or self.action_high is None:
            raise TypeError(
                f"{agent} needs continuous (box) actions; the env's are {self.n_actions} discrete"
            )
        return self.action_low, self.action_high

    def need_images(self, agent: str, images: bool) -> None:
        """Refuses a dict observation with image parts unless the agent reads them (``images``: it has a
        multi-input encoder): an MLP on raw pixels laid flat would learn little, and silently.

        Raises:
            TypeError: an image part and not ``images``; the message names ``agent`` and the part.
        """
        found = () if self.obs_parts is None else self.obs_parts.images
        if found and not images:
            raise TypeError(
                f"{agent}: the observation's part {found[0].key!r} is an image {found[0].shape}; give the "
                "agent an encoder that reads it (agent.encoder: {kind: multi_input})"
            )


class HasSpaces(Protocol):
    """An env that declares its spaces (every env of border_py does; a user's env adds the property)."""

    @property
    def spaces(self) -> Spaces:
        """The observation shape and action space agents are built from."""
        ...
