"""CrossQ on Pendulum-v1 with RL Zoo's settings: the zoo's ``crossq`` entry for Pendulum-v1, as a program.

    python -m examples.crossq_pendulum --train    # 20,000 env steps, into runs/crossq/Pendulum-v1/seed0
    python -m examples.crossq_pendulum --eval     # the best model, greedy (the tanh of the mean action)

The same run as ``border-py train crossq --env Pendulum-v1``: ``examples/sac_pendulum.py``'s run (batch 256,
learning rates 1e-3, one update per env step after 256 warm-up steps) with CrossQ in place of SAC, as RL
Zoo's CrossQ entry for Pendulum-v1 sets it (SBX's defaults with 256x256 critics and the policy every 2nd
update): no target critics, batch renormalisation in the critics and the policy, Adam's beta1 0.5.
"""

import sys

import attrs

from border_py.agents import CrossQConfig
from border_py.run import run_cli
from examples.sac_pendulum import EXPERIMENT as SAC_PENDULUM

EXPERIMENT = attrs.evolve(
    SAC_PENDULUM,
    agent=CrossQConfig(
        actor_hidden=(256, 256),
        critic_hidden=(256, 256),
        actor_lr=1e-3,
        critic_lr=1e-3,
        alpha_lr=1e-3,
        batch_size=256,
        policy_delay=2,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
