"""Behaviour cloning on pendulum-medium-v0 (offline): the zoo's ``bc`` entry, as a program.

    make datasets                                # once: the local dataset in runs/datasets
    python -m examples.bc_pendulum --train       # into runs/bc/pendulum-medium-v0/seed0
    python -m examples.bc_pendulum --eval        # the best model in Pendulum-v1

The same run as ``border-py train bc --env pendulum-medium-v0``: d3rlpy's deterministic BC (a regression of
the unit-scaled action through tanh), 256x256 ReLU, Adam 1e-3, batch 100, on the protocol of
``examples/pendulum_medium.py``.
"""

import sys

from border_py.agents import BcConfig
from border_py.run import OfflineExperiment, run_cli
from examples.pendulum_medium import DATASET, EVAL_ENV, SCHEDULE

EXPERIMENT = OfflineExperiment(env=EVAL_ENV, dataset=DATASET, agent=BcConfig(), trainer=SCHEDULE)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
