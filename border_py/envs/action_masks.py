"""Masks an env gives elsewhere than in its observation, moved into it: Gymnasium's ``info["action_mask"]``
(Taxi's convention) or an ``action_masks()`` method (sb3-contrib's ``MaskablePPO``'s), read after each reset
and step and added as the dict observation part ``action_mask``, where every border_py agent that takes masks
reads them (`border_py.base.Spaces.action_mask`). A ``Box`` observation becomes the part ``observation``.

Examples:
    >>> import gymnasium as gym
    >>> import border_py.envs.masked_envs  # noqa: F401  (registers the id)
    >>> env = MaskInObservation(gym.make("border_py/PickDistinct-v0", masked=False), "method")
    >>> obs, _ = env.reset(seed=0)
    >>> sorted(obs), obs["action_mask"].tolist()
    (['action_mask', 'taken', 'worth'], [1, 1, 1, 1, 1, 1, 1, 1])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NoReturn

import gymnasium as gym
import numpy as np

from border_py.base.spaces import ACTION_MASK

MaskSource = Literal["observation", "info", "method"]
"""Where an env gives its legal actions: in its observation (or nowhere), ``info["action_mask"]``, or its
``action_masks()`` method."""


class MaskRefusedError(TypeError):
    """An env `MaskInObservation` cannot take (the message names the env and ``env.action_mask``), raised
    while the env is made: `border_py.envs.gymnasium.make_gym` passes it on as it is, not as a refusal of
    the env's kwargs."""


class MaskInObservation(gym.Wrapper[Any, Any, Any, Any]):
    """Adds the env's mask (``source``: ``info`` or ``method``) to each observation as the part
    ``action_mask``, one int8 flag per discrete action.

    Raises:
        MaskRefusedError: (a TypeError) the actions are not discrete, or the observation has an
            ``action_mask`` part already.
        ValueError: (at a reset or step) the info has no ``action_mask``, or the env no ``action_masks()``.
    """

    def __init__(self, env: gym.Env[Any, Any], source: Literal["info", "method"]) -> None:
        super().__init__(env)
        self.name = env.spec.id if env.spec is not None else type(env.unwrapped).__name__
        space = env.observation_space
        if not isinstance(env.action_space, gym.spaces.Discrete):
            self._refuse(f"action masks are for discrete actions, the env's are {env.action_space}")
        parts = dict(space.spaces) if isinstance(space, gym.spaces.Dict) else {"observation": space}
        if ACTION_MASK in parts:
            self._refuse(f"the observation has an {ACTION_MASK!r} part already: take the mask from it")
        self.source = source
        self.observation_space = gym.spaces.Dict(
            {**parts, ACTION_MASK: gym.spaces.MultiBinary(int(env.action_space.n))}
        )

    def _refuse(self, why: str) -> NoReturn:
        raise MaskRefusedError(f"{self.name}: env.action_mask: {why}")

    def _with_mask(self, obs: Any, info: dict[str, Any]) -> dict[str, Any]:
        name = self.name
        if self.source == "info":
            if ACTION_MASK not in info:
                raise ValueError(f"{name}: its info has no {ACTION_MASK!r} (env.action_mask: info reads it)")
            mask = info[ACTION_MASK]
        else:
            try:
                mask = self.env.get_wrapper_attr("action_masks")()
            except AttributeError:
                raise ValueError(f"{name} has no action_masks() (env.action_mask: method calls it)") from None
        base = dict(obs) if isinstance(obs, Mapping) else {"observation": obs}
        return {**base, ACTION_MASK: np.asarray(mask).astype(np.int8)}

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """The env's reset, its observation with the mask."""
        obs, info = self.env.reset(**kwargs)
        return self._with_mask(obs, info), info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """The env's step, its observation with the mask."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._with_mask(obs, info), reward, terminated, truncated, info


def mask_wrapper(source: MaskSource) -> Any:
    """The wrapper that moves ``source``'s mask into the observation (``None`` for ``observation``)."""
    if source == "observation":
        return None
    return lambda env: MaskInObservation(env, source)
