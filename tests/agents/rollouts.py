"""Random rollouts for the on-policy agents' tests (PPO, A2C)."""

from __future__ import annotations

import numpy as np

from border_py import RolloutBuffer, Transition


def fill_rollout(buffer: RolloutBuffer, rng: np.random.Generator, act_dim: int | None) -> None:
    """One rollout of random-walk observations (size 3) with an episode end now and then."""
    n_steps, num_envs = buffer.config.n_steps, buffer.config.num_envs
    obs = [rng.normal(size=3).astype(np.float32) for _ in range(num_envs)]
    for _ in range(n_steps):
        for i in range(num_envs):
            nxt = (obs[i] + rng.normal(size=3)).astype(np.float32)
            end = rng.random()
            act = rng.normal(size=act_dim).astype(np.float32) if act_dim else np.array(rng.integers(2))
            buffer.push(
                Transition(
                    obs=obs[i], act=act, next_obs=nxt, reward=float(rng.normal()),
                    is_terminated=end < 0.05, is_truncated=0.05 <= end < 0.1, discount=0.9,
                )
            )  # fmt: skip
            obs[i] = rng.normal(size=3).astype(np.float32) if end < 0.1 else nxt
