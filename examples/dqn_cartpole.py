"""DQN on CartPole-v1 with RL Zoo's tuned settings: the zoo's ``dqn`` entry for CartPole-v1, as a program.

    python -m examples.dqn_cartpole --train    # about a minute on 2 cores, into runs/dqn/CartPole-v1/seed0
    python -m examples.dqn_cartpole --eval     # the best model, greedy: 500
    python -m examples.dqn_cartpole --help     # --resume, --video, --export, --seed, --set, --model-dir ...

The same run as ``border-py train dqn --env CartPole-v1``. RL Zoo's units are translated: SB3's 128 gradient
steps every 256 env steps are one opt step every 2 env steps, and its target network, which changes once
per block of 128 gradient steps, is copied every 128 opt steps.
"""

import sys

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig, TrainerConfig
from border_py.agents import DqnConfig, EpsilonGreedyConfig
from border_py.run import Experiment, run_cli

EXPLORER = EpsilonGreedyConfig(eps_final=0.04, final_step=8_000)
"""Epsilon from 1 to 0.04 over the first 8,000 env steps."""

SCHEDULE = TrainerConfig(
    max_opts=25_000,
    opt_interval=2,
    warmup_period=1_000,
    eval_interval=1_000,
    record_interval=500,
    save_interval=5_000,
    checkpoint_buffer=True,
)
"""One opt step every 2 env steps after 1,000 warm-up env steps; 10 greedy episodes every 1,000 opt steps."""

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=DqnConfig(
        hidden=(256, 256),
        lr=2.3e-3,
        batch_size=64,
        target_update_interval=128,
        max_grad_norm=10.0,
        explorer=EXPLORER,
    ),
    trainer=SCHEDULE,
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
