"""PPO on Hopper-v5 at 1M env steps with CleanRL's settings: the zoo's ``ppo`` entry (the MuJoCo extra).

    python -m examples.ppo_mujoco --train      # about 50 minutes on one core, into runs/ppo/Hopper-v5/seed0
    python -m examples.ppo_mujoco --resume     # a checkpoint at each evaluation, every 51,200 env steps

The same run as ``border-py train ppo --env Hopper-v5`` (CleanRL's ``ppo_continuous_action.py`` defaults):
one env, rollouts of 2,048, 10 epochs of minibatches of 64, lr 3e-4 falling linearly to 0 over the run,
gamma 0.99, GAE lambda 0.95, clip 0.2, gradient clip 0.5, a 64x64 tanh policy with orthogonal
initialisation, observations and rewards normalised (the statistics are saved in every checkpoint and
frozen in evaluation). The zoo's Walker2d entry uses the same settings (``border-py train ppo --env
Walker2d-v5``); its HalfCheetah and Swimmer entries use RL Zoo's.
"""

import sys

from border_py import RolloutBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import PpoConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ROLLOUT = 2_048
ENV_STEPS = 1_000_000

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="Hopper-v5", num_envs=1, clip_actions=True),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=1),
    agent=PpoConfig(
        lr=3e-4,
        lr_schedule="linear",
        schedule_env_steps=ENV_STEPS,
        n_epochs=10,
        batch_size=64,
        gae_lambda=0.95,
        max_grad_norm=0.5,
        normalize_obs=True,
        normalize_reward=True,
    ),
    trainer=TrainerConfig(
        max_env_steps=ENV_STEPS,
        opt_interval=ROLLOUT,
        eval_interval=25,
        record_interval=5,
        save_interval=25,
        checkpoint_buffer=True,
        keep_checkpoints=2,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
