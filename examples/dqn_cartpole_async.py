"""DQN on CartPole-v1 with actors on Ray: the ``dqn_cartpole`` example's agent and schedule, its env steps
collected by ``--actors N`` actor processes (the ``distributed`` extra).

    python -m examples.dqn_cartpole_async --train --model-dir runs/dqn_cartpole_async --actors 2
    python -m examples.dqn_cartpole_async --train --model-dir runs/x --address 127.0.0.1:6379  # a cluster
    python -m examples.dqn_cartpole_async --eval --model-dir runs/dqn_cartpole_async

The learner takes one opt step per 2 env steps of all actors together (``trainer.opt_interval``, held by
the rate limiter whatever the actors' speed), publishes the Q-network every ``distributed.sync_interval``
opt steps, and evaluates, saves and resumes as the synchronous example does. Without ``--address`` (or
``RAY_ADDRESS``) it starts a local Ray for the run (5-8 s).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import attrs

from border_py import TrainerConfig, TrainResult
from border_py.agents import Dqn, DqnConfig
from border_py.distributed import AsyncConfig
from border_py.envs import GymEnv
from examples import dqn_cartpole
from examples.harness import ASYNC_FLAGS, EvalOptions, RunOptions, evaluate_saved, run_example, train_async


@attrs.frozen(kw_only=True)
class Config(dqn_cartpole.Config):
    """The synchronous example's config, with the actors."""

    trainer: TrainerConfig = attrs.evolve(dqn_cartpole.Config().trainer, model_dir="runs/dqn_cartpole_async")
    distributed: AsyncConfig = AsyncConfig(n_actors=2, actor_steps=32, sync_interval=25)
    """Two actors, each request 32 env steps (16 opt steps' worth), the Q-network published every 25 opt
    steps."""


def actor_agent(agent: DqnConfig, obs_dim: int, n_actions: int, seed: int) -> Dqn:
    """An actor's acting copy (module level, so that it pickles to the actor processes)."""
    return Dqn(agent, obs_dim=obs_dim, n_actions=n_actions, seed=seed)


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains with the actors, saving into ``config.trainer.model_dir`` (``options.resume`` continues)."""
    return train_async(
        config,
        lambda env: dqn_cartpole.make_agent(config, env),
        lambda env: functools.partial(actor_agent, config.agent, env.obs_dim, env.n_actions),
        options or RunOptions(),
    )


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean return (as the synchronous example)."""
    return evaluate_saved(config, lambda env: dqn_cartpole.make_agent(config, env), model_dir, options)


def make_agent(config: Config, env: GymEnv) -> Dqn:
    """The learner's agent (the synchronous example's)."""
    return dqn_cartpole.make_agent(config, env)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags (the common ones, ``--actors``, ``--address``) and trains and/or evaluates."""
    return run_example(argv, __doc__, Config(), train, evaluate, extra_flags=ASYNC_FLAGS)


if __name__ == "__main__":
    sys.exit(main())
