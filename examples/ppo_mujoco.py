"""PPO on Hopper-v5 at 1M env steps with RL Zoo's tuned settings: the zoo's ``ppo`` entry (the MuJoCo extra).

    python -m examples.ppo_mujoco --train      # about 1.5 hours on one core, into runs/ppo/Hopper-v5/seed0
    python -m examples.ppo_mujoco --resume     # a checkpoint at each evaluation, every 50,176 env steps

The same run as ``border-py train ppo --env Hopper-v5`` (RL Zoo's Hopper entry, tuned on v3/v4): one env,
rollouts of 512, 5 epochs of minibatches of 32, GAE lambda 0.99, gamma 0.999, lr 9.8e-5, clip 0.2, a
256x256 ReLU policy without orthogonal initialisation and an initial log-std of -2, observations and
rewards normalised (the statistics are saved in every checkpoint and frozen in evaluation). The zoo's
Walker2d, HalfCheetah and Swimmer entries use other settings: ``border-py train ppo --env Walker2d-v5``.
"""

import sys

from border_py import RolloutBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import PpoConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ROLLOUT = 512

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="Hopper-v5", num_envs=1, clip_actions=True),
    step_processor=SimpleStepProcessorConfig(gamma=0.999),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=1),
    agent=PpoConfig(
        hidden=(256, 256),
        activation="relu",
        ortho_init=False,
        log_std_init=-2.0,
        lr=9.80828e-5,
        n_epochs=5,
        batch_size=32,
        gae_lambda=0.99,
        ent_coef=0.00229519,
        vf_coef=0.835671,
        max_grad_norm=0.7,
        clip_range=0.2,
        normalize_obs=True,
        normalize_reward=True,
    ),
    trainer=TrainerConfig(
        max_env_steps=1_000_000,
        opt_interval=ROLLOUT,
        eval_interval=98,
        record_interval=10,
        save_interval=98,
        checkpoint_buffer=True,
        keep_checkpoints=2,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
