"""Recurrent PPO on CartPole without its velocities, with RL Zoo's tuned settings: the zoo's
``recurrent_ppo`` entry for ``border_py/CartPoleNoVel-v1``, as a program.

    python -m examples.recurrent_ppo_cartpole --train    # 100,000 env steps (~3 min on one core)
    python -m examples.recurrent_ppo_cartpole --eval

The same run as ``border-py train recurrent_ppo --env border_py/CartPoleNoVel-v1``. The env zeroes the
cart's and the pole's velocities in every observation (RL Zoo's ``CartPoleNoVel-v1``), so a policy must
infer them from the observations before: PPO without memory stays far below 500, the LSTM policy reaches
it. RL Zoo's ``ppo_lstm.yml`` entry: 8 envs stepping together, rollouts of 32 steps (256 transitions, one
opt step each), 20 epochs of one minibatch of 256 steps, GAE lambda 0.8, gamma 0.98, the learning rate
(1e-3) and the clip range (0.2) both falling linearly to 0 over the 100,000 env steps, observations and
rewards normalised; an LSTM of 64 units for the policy and one for the value, each followed by one ReLU
layer of 64.
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import RecurrentPpoConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ENVS, ROLLOUT = 8, 32

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="border_py/CartPoleNoVel-v1", num_envs=ENVS),
    step_processor=SimpleStepProcessorConfig(gamma=0.98),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=ENVS),
    agent=RecurrentPpoConfig(
        lstm_hidden=64,
        hidden=(64,),
        activation="relu",
        ortho_init=False,
        normalize_obs=True,
        normalize_reward=True,
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
    evaluator=DefaultEvaluatorConfig(n_episodes=10),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
