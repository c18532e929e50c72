"""QR-DQN on CartPole-v1 with RL Zoo's tuned settings: the zoo's ``qrdqn`` entry for CartPole-v1 as a program.

    python -m examples.qrdqn_cartpole --train    # into runs/qrdqn/CartPole-v1/seed0
    python -m examples.qrdqn_cartpole --eval     # the best model, greedy
    python -m examples.qrdqn_cartpole --export   # numpy and ONNX: one MLP whose output is the mean quantile

The same run as ``border-py train qrdqn --env CartPole-v1``: RL Zoo's ``qrdqn.yml`` (10 quantiles,
256x256, lr 2.3e-3) within 50,000 env steps, on the schedule and explorer of ``examples/dqn_cartpole.py``;
sb3-contrib's defaults otherwise (Adam's epsilon 0.01 / 32, no gradient clipping).
"""

import sys

import attrs

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig
from border_py.agents import QrDqnConfig
from border_py.run import Experiment, run_cli
from examples.dqn_cartpole import EXPLORER, SCHEDULE

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=QrDqnConfig(
        n_quantiles=10,
        hidden=(256, 256),
        lr=2.3e-3,
        batch_size=64,
        target_update_interval=128,
        explorer=EXPLORER,
    ),
    trainer=attrs.evolve(SCHEDULE, max_opts=None, max_env_steps=50_000),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
