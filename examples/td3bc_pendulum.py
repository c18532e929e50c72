"""TD3+BC on pendulum-medium-v0 (offline): the zoo's ``td3bc`` entry, as a program.

    make datasets                                # once: the local dataset in runs/datasets
    python -m examples.td3bc_pendulum --train    # into runs/td3bc/pendulum-medium-v0/seed0
    python -m examples.td3bc_pendulum --eval

The same run as ``border-py train td3bc --env pendulum-medium-v0``: the paper's and CORL's settings (alpha
2.5, observations normalised by the dataset's statistics, 256x256 networks, Adam 3e-4, batch 256, target
smoothing 0.2 clipped at 0.5, the actor updated every second step), on the protocol of
``examples/pendulum_medium.py``.
"""

import sys

from border_py.agents import Td3BcConfig
from border_py.run import OfflineExperiment, run_cli
from examples.pendulum_medium import DATASET, EVAL_ENV, SCHEDULE

EXPERIMENT = OfflineExperiment(env=EVAL_ENV, dataset=DATASET, agent=Td3BcConfig(alpha=2.5), trainer=SCHEDULE)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
