"""Environment adapters."""

from border_py.envs.gymnasium import Act, GymEnv, GymEnvConfig, Obs

__all__ = ["Act", "GymEnv", "GymEnvConfig", "Obs"]
