"""Conservative Q-learning on pendulum-medium-v0 (offline): the zoo's ``cql`` entry, as a program.

    make datasets                                # once: the local dataset in runs/datasets
    python -m examples.cql_pendulum --train      # into runs/cql/pendulum-medium-v0/seed0
    python -m examples.cql_pendulum --eval

The same run as ``border-py train cql --env pendulum-medium-v0``: CORL's continuous CQL(H) (the conservative
weight 10 over 10 importance-sampled actions per source, a tanh-Gaussian policy with automatic entropy
tuning, twin critics, Adam 3e-5 for the policy and 3e-4 for the critics), with 256x256 networks in place
of CORL's three 256-unit layers, on the protocol of ``examples/pendulum_medium.py``.
"""

import sys

from border_py.agents import CqlConfig
from border_py.run import OfflineExperiment, run_cli
from examples.pendulum_medium import DATASET, EVAL_ENV, SCHEDULE

EXPERIMENT = OfflineExperiment(
    env=EVAL_ENV,
    dataset=DATASET,
    agent=CqlConfig(actor_hidden=(256, 256), critic_hidden=(256, 256)),
    trainer=SCHEDULE,
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
