"""Implicit Q-learning on pendulum-medium-v0 (offline): the zoo's ``iql`` entry, as a program.

    make datasets                                # once: the local dataset in runs/datasets
    python -m examples.iql_pendulum --train      # into runs/iql/pendulum-medium-v0/seed0
    python -m examples.iql_pendulum --eval

The same run as ``border-py train iql --env pendulum-medium-v0``: the paper's and CORL's settings (expectile
0.7, temperature 3, advantage weights clipped at 100, twin 256x256 critics and a value network, a Gaussian
actor, Adam 3e-4, batch 256, Polyak 0.005), on the protocol of ``examples/pendulum_medium.py``.
"""

import sys

from border_py.agents import IqlConfig
from border_py.run import OfflineExperiment, run_cli
from examples.pendulum_medium import DATASET, EVAL_ENV, SCHEDULE

EXPERIMENT = OfflineExperiment(
    env=EVAL_ENV, dataset=DATASET, agent=IqlConfig(expectile=0.7, temperature=3.0), trainer=SCHEDULE
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
