"""Environment adapters."""

from border_py.envs.atari import AtariEnv, AtariEnvConfig, AtariVecEnv, AtariVecEnvConfig, Frames
from border_py.envs.goal_envs import PointGoalEnv
from border_py.envs.gym_vector import GymVecEnv, GymVecEnvConfig
from border_py.envs.gymnasium import Act, GymEnv, GymEnvConfig, Obs

__all__ = [
    "Act",
    "AtariEnv",
    "AtariEnvConfig",
    "AtariVecEnv",
    "AtariVecEnvConfig",
    "Frames",
    "GymEnv",
    "GymEnvConfig",
    "GymVecEnv",
    "GymVecEnvConfig",
    "Obs",
    "PointGoalEnv",
]
