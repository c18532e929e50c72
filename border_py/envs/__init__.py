"""Environment adapters."""

from border_py.envs.gymnasium import Act, GymEnv, GymEnvConfig, GymVecEnv, GymVecEnvConfig, Obs

__all__ = ["Act", "GymEnv", "GymEnvConfig", "GymVecEnv", "GymVecEnvConfig", "Obs"]
