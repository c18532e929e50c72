"""TQC on Pendulum-v1: the zoo's ``tqc`` entry for Pendulum-v1, as a program.

    python -m examples.tqc_pendulum --train    # 20,000 env steps, into runs/tqc/Pendulum-v1/seed0
    python -m examples.tqc_pendulum --eval     # the best model, greedy (the tanh of the mean action)

The same run as ``border-py train tqc --env Pendulum-v1``: ``examples/sac_pendulum.py``'s run (RL Zoo's SAC
settings) with sb3-contrib's TQC critics, 2 critics of 25 quantiles, the 4 largest of the 50 pooled target
quantiles dropped. RL Zoo's own TQC entry for Pendulum uses gSDE, which SAC and TQC here do not have yet.
"""

import sys

import attrs

from border_py.agents import TqcConfig
from border_py.run import run_cli
from examples.sac_pendulum import EXPERIMENT as SAC_PENDULUM

EXPERIMENT = attrs.evolve(
    SAC_PENDULUM,
    agent=TqcConfig(
        actor_lr=1e-3,
        critic_lr=1e-3,
        alpha_lr=1e-3,
        batch_size=256,
        tau=0.005,
        n_critics=2,
        n_quantiles=25,
        top_quantiles_to_drop_per_net=2,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
