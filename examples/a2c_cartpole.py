"""A2C on CartPole-v1 with RL Zoo's settings: the zoo's ``a2c`` entry for CartPole-v1, as a program.

    python -m examples.a2c_cartpole --train    # 500,000 env steps, into runs/a2c/CartPole-v1/seed0
    python -m examples.a2c_cartpole --eval

The same run as ``border-py train a2c --env CartPole-v1``: 8 envs stepping together, rollouts of 5 steps
(40 transitions, one RMSprop step each, alpha 0.99, epsilon 1e-5, lr 7e-4), n-step returns (GAE lambda 1),
gamma 0.99, value weight 0.5, gradient clip 0.5, advantages not normalised; SB3's policy (64x64 tanh,
orthogonal initialisation). Evaluated every 625 rollouts (25,000 env steps).
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import A2cConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ENVS, ROLLOUT = 8, 5

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="CartPole-v1", num_envs=ENVS),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=ENVS),
    agent=A2cConfig(),
    trainer=TrainerConfig(
        max_env_steps=500_000,
        opt_interval=ROLLOUT * ENVS,
        eval_interval=625,
        record_interval=125,
        save_interval=625,
        checkpoint_buffer=True,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=10),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
