"""IQN on CartPole-v1: the zoo's ``iqn`` entry for CartPole-v1, as a program.

    python -m examples.iqn_cartpole --train    # into runs/iqn/CartPole-v1/seed0
    python -m examples.iqn_cartpole --eval

The same run as ``border-py train iqn --env CartPole-v1``: the schedule, explorer and optimiser of
``examples/dqn_cartpole.py`` (RL Zoo's) within 50,000 env steps; a 256-unit network (state, quantile
embedding, head); 16 uniformly sampled quantile fractions for the prediction and the target; the greedy
action maximises the mean of 32 evenly spaced quantiles.
"""

import sys

import attrs

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig
from border_py.agents import IqnConfig, UniformTaus
from border_py.run import Experiment, run_cli
from examples.dqn_cartpole import EXPLORER, SCHEDULE

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=IqnConfig(
        hidden=(256,),
        embed_dim=256,
        head_hidden=(256,),
        pred_taus=UniformTaus(n=16),
        target_taus=UniformTaus(n=16),
        lr=2.3e-3,
        target_update_interval=128,
        max_grad_norm=10.0,
        explorer=EXPLORER,
    ),
    trainer=attrs.evolve(SCHEDULE, max_opts=24_500),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
