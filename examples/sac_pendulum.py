"""SAC on Pendulum-v1 with RL Zoo's settings: the zoo's ``sac`` entry for Pendulum-v1, as a program.

    python -m examples.sac_pendulum --train    # 20,000 env steps, into runs/sac/Pendulum-v1/seed0
    python -m examples.sac_pendulum --eval     # the best model, greedy (the tanh of the mean action)

The same run as ``border-py train sac --env Pendulum-v1``: 256x256 networks, learning rates 1e-3, batch 256,
Polyak 0.005, the entropy coefficient tuned automatically; one update per env step after 256 warm-up steps
of uniformly random actions.
"""

import sys

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig, TrainerConfig
from border_py.agents import SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="Pendulum-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=SacConfig(actor_lr=1e-3, critic_lr=1e-3, alpha_lr=1e-3, batch_size=256, tau=0.005),
    trainer=TrainerConfig(
        max_opts=19_744,
        warmup_period=256,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        checkpoint_buffer=True,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
