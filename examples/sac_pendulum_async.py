"""SAC on Pendulum-v1 with actors on Ray: the ``sac_pendulum`` example's agent and schedule (one update
per env step of all actors together), its env steps collected by ``--actors N`` actor processes.

    python -m examples.sac_pendulum_async --train --model-dir runs/sac_pendulum_async --actors 2
    python -m examples.sac_pendulum_async --eval --model-dir runs/sac_pendulum_async
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt

from border_py import TrainerConfig, TrainResult
from border_py.agents import Sac, SacConfig
from border_py.distributed import AsyncConfig
from border_py.envs import GymEnv
from examples import sac_pendulum
from examples.harness import ASYNC_FLAGS, EvalOptions, RunOptions, evaluate_saved, run_example, train_async


@attrs.frozen(kw_only=True)
class Config(sac_pendulum.Config):
    """The synchronous example's config, with the actors."""

    trainer: TrainerConfig = attrs.evolve(sac_pendulum.Config().trainer, model_dir="runs/sac_pendulum_async")
    distributed: AsyncConfig = AsyncConfig(n_actors=2, actor_steps=16, sync_interval=16)
    """Two actors, each request 16 env steps (16 updates' worth), the policy published every 16 updates."""


def actor_agent(
    agent: SacConfig, obs_dim: int, low: npt.NDArray[np.float32], high: npt.NDArray[np.float32], seed: int
) -> Sac:
    """An actor's acting copy (module level, so that it pickles to the actor processes)."""
    return Sac(agent, obs_dim, low, high, seed=seed)


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains with the actors, saving into ``config.trainer.model_dir`` (``options.resume`` continues)."""
    return train_async(
        config,
        lambda env: sac_pendulum.make_agent(config, env),
        lambda env: functools.partial(actor_agent, config.agent, env.obs_dim, *env.action_bounds),
        options or RunOptions(),
    )


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return (as the synchronous example)."""
    return evaluate_saved(config, lambda env: sac_pendulum.make_agent(config, env), model_dir, options)


def make_agent(config: Config, env: GymEnv) -> Sac:
    """The learner's agent (the synchronous example's)."""
    return sac_pendulum.make_agent(config, env)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags (the common ones, ``--actors``, ``--address``) and trains and/or evaluates."""
    return run_example(argv, __doc__, Config(), train, evaluate, extra_flags=ASYNC_FLAGS)


if __name__ == "__main__":
    sys.exit(main())
