"""Environment adapters."""

from border_py.envs.gym_vector import GymVecEnv, GymVecEnvConfig
from border_py.envs.gymnasium import Act, GymEnv, GymEnvConfig, Obs

__all__ = ["Act", "GymEnv", "GymEnvConfig", "GymVecEnv", "GymVecEnvConfig", "Obs"]
