"""SAC on HalfCheetah-v5 at the published budget, 1M env steps: the zoo's ``sac`` entry (the MuJoCo extra).

    python -m examples.sac_mujoco --train      # 3.5-4 h on a free core, into runs/sac/HalfCheetah-v5/seed0
    python -m examples.sac_mujoco --train --set env.name=Hopper-v5 --model-dir runs/sac/Hopper-v5/seed0
    python -m examples.sac_mujoco --resume     # a checkpoint (with its replay buffer) every 50,000 env steps

The same run as ``border-py train sac --env HalfCheetah-v5``: RL Zoo's and the SAC paper's MuJoCo settings
(lr 3e-4, 256x256 networks, batch 256, a replay buffer of 1e6, Polyak 0.005, the entropy coefficient tuned
automatically, one update per env step after 10,000 uniformly random warm-up steps), evaluated over 5
greedy episodes every 10,000 opt steps. The zoo's Hopper-v5 and Walker2d-v5 entries are the same settings.
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
)
from border_py.agents import SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="HalfCheetah-v5"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=1_000_000),
    agent=SacConfig(actor_hidden=(256, 256), critic_hidden=(256, 256), batch_size=256, tau=0.005),
    trainer=TrainerConfig(
        max_env_steps=1_000_000,
        warmup_period=10_000,
        eval_interval=10_000,
        record_interval=1_000,
        save_interval=50_000,
        checkpoint_buffer=True,
        keep_checkpoints=2,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=5),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
