"""Classic-control envs without their velocities, registered as ``border_py/...`` Gymnasium ids (`make_gym`
imports this module for such an id): partially observable tasks, which an agent solves only by
remembering (a recurrent policy, or stacked observations), as RL Zoo's ``CartPoleNoVel-v1`` and its kin
(``rl_zoo3.wrappers.MaskVelocityWrapper``) are.

Each id is its base env with the velocity entries of every observation multiplied by 0 (RL Zoo's mask: the
shape, the float32 dtype and the observation space stay the base env's, and a negative velocity reads
``-0.0``), and the base id's episode limit (`VELOCITY_INDICES` lists them):

- ``border_py/CartPoleNoVel-v1``: CartPole-v1 without the cart's and the pole's velocities (500 steps);
- ``border_py/PendulumNoVel-v1``: Pendulum-v1 without the angular velocity (200 steps);
- ``border_py/MountainCarNoVel-v0`` and ``border_py/MountainCarContinuousNoVel-v0``: the car's velocity
  (200 and 999 steps).

Examples:
    >>> import gymnasium as gym
    >>> import border_py.envs.no_velocity  # noqa: F401  (registers the ids)
    >>> obs, _ = gym.make("border_py/CartPoleNoVel-v1").reset(seed=0)
    >>> obs.dtype, abs(obs[[1, 3]]).tolist()
    (dtype('float32'), [0.0, 0.0])
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

VELOCITY_INDICES: dict[str, tuple[str, tuple[int, ...]]] = {
    "border_py/CartPoleNoVel-v1": ("CartPole-v1", (1, 3)),
    "border_py/PendulumNoVel-v1": ("Pendulum-v1", (2,)),
    "border_py/MountainCarNoVel-v0": ("MountainCar-v0", (1,)),
    "border_py/MountainCarContinuousNoVel-v0": ("MountainCarContinuous-v0", (1,)),
}
"""Each id: its base id and the observation entries masked (RL Zoo 2.9.2's ``velocity_indices``)."""


class VelocityMask(gym.ObservationWrapper[F32, Any, F32]):
    """Multiplies the entries ``indices`` of each observation by 0; the observation space is the env's.

    Args:
        env: an env with a float32 Box observation space of one dimension.
        indices: the entries masked.
    """

    def __init__(self, env: gym.Env[F32, Any], indices: tuple[int, ...]) -> None:
        super().__init__(env)
        self.mask = np.ones(env.observation_space.shape or (), np.float32)
        self.mask[list(indices)] = 0.0

    def observation(self, observation: F32) -> F32:
        """The observation times the mask."""
        return observation * self.mask


def _masked(base: str, indices: tuple[int, ...], **kwargs: Any) -> VelocityMask:
    # The raw base env: the TimeLimit is the one this id registers (the base's), so that a
    # ``max_episode_steps`` given to gymnasium.make replaces it instead of ending inside the base's own.
    # gymnasium.make adds the env checker and order enforcement around this wrapper again.
    return VelocityMask(gym.make(base, **kwargs).unwrapped, indices)


def _register() -> None:
    for name, (base, indices) in VELOCITY_INDICES.items():
        if name not in gym.registry:
            spec = gym.spec(base)
            gym.register(
                name,
                entry_point=functools.partial(_masked, base, indices),
                max_episode_steps=spec.max_episode_steps,
                reward_threshold=spec.reward_threshold,
            )


_register()
