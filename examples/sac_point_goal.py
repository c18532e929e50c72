"""SAC on dict observations: border_py's goal env ``border_py/PointGoal-v0``, whose observations are
``{"observation", "achieved_goal", "desired_goal"}``, as the zoo's ``sac`` entry for it, as a program.

    python -m examples.sac_point_goal --train     # 5,000 env steps (~1.5 min), into runs/sac/...
    python -m examples.sac_point_goal --eval      # the best model, greedy
    python -m examples.sac_point_goal --export    # numpy and ONNX policies that take the dict

The agent sees each observation as one flat vector, the parts side by side in the space's key order
(``env.spaces.obs_parts`` says where each lies); a loaded or exported policy takes the dict again. The
settings are the zoo's Pendulum ones (learning rates 1e-3, 256x256, batch 256, 256 warm-up steps).
"""

import sys

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig, TrainerConfig
from border_py.agents import SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="border_py/PointGoal-v0"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=SacConfig(actor_lr=1e-3, critic_lr=1e-3, alpha_lr=1e-3, batch_size=256, tau=0.005),
    trainer=TrainerConfig(
        max_env_steps=5_000,
        warmup_period=256,
        eval_interval=500,
        record_interval=500,
        save_interval=2_500,
        checkpoint_buffer=True,
        keep_checkpoints=None,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
