"""PPO on CartPole-v1 with RL Zoo's tuned settings: the zoo's ``ppo`` entry for CartPole-v1, as a program.

    python -m examples.ppo_cartpole --train    # 100,000 env steps, into runs/ppo/CartPole-v1/seed0
    python -m examples.ppo_cartpole --eval

The same run as ``border-py train ppo --env CartPole-v1``: 8 envs stepping together, rollouts of 32 steps
(256 transitions, one opt step each), 20 epochs of one minibatch of 256, GAE lambda 0.8, gamma 0.98, the
learning rate (1e-3) and the clip range (0.2) both falling linearly to 0 over the 100,000 env steps; SB3's
policy (64x64 tanh, orthogonal initialisation).
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import PpoConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ENVS, ROLLOUT = 8, 32

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="CartPole-v1", num_envs=ENVS),
    step_processor=SimpleStepProcessorConfig(gamma=0.98),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=ENVS),
    agent=PpoConfig(
        lr=1e-3,
        lr_schedule="linear",
        clip_range=0.2,
        clip_schedule="linear",
        schedule_env_steps=100_000,
        n_epochs=20,
        batch_size=256,
        gae_lambda=0.8,
    ),
    trainer=TrainerConfig(
        max_env_steps=100_000,
        opt_interval=ROLLOUT * ENVS,
        eval_interval=8,
        record_interval=8,
        save_interval=100,
        checkpoint_buffer=True,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=5),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
