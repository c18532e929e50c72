"""AWAC on pendulum-medium-v0 offline, then fine-tuned online in Pendulum-v1: the zoo's two ``awac`` entries.

    make datasets                                           # once: the local dataset in runs/datasets
    python -m examples.awac_pendulum --train                # offline, into runs/awac/pendulum-medium-v0/seed0
    python -m examples.awac_pendulum --train --finetune     # online, into .../seed0/finetune, from its best/
    python -m examples.awac_pendulum --eval --finetune

The offline stage is ``border-py train awac --env pendulum-medium-v0`` (CORL's settings, on the protocol of
``examples/pendulum_medium.py``) with the advantage temperature ``lam`` at 10: at 1 the critics diverged on
this dataset within 4,000 steps. The fine-tuning stage is ``border-py train awac --env Pendulum-v1 --set
init_from=...``: the same agent trained online for 60,000 env steps, one update per env step, its replay
buffer starting with the dataset (AWAC's reason to exist).
"""

import sys

from border_py import SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import AwacConfig
from border_py.datasets import PrefilledReplayBufferConfig
from border_py.run import Experiment, OfflineExperiment, run_cli
from examples.pendulum_medium import DATASET, EVAL_ENV, SCHEDULE

OFFLINE = OfflineExperiment(env=EVAL_ENV, dataset=DATASET, agent=AwacConfig(lam=10.0), trainer=SCHEDULE)

FINETUNE = Experiment(
    env=EVAL_ENV,
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=PrefilledReplayBufferConfig(capacity=1_000_000, dataset=DATASET),
    agent=OFFLINE.agent,
    trainer=TrainerConfig(
        max_env_steps=60_000, eval_interval=1_000, record_interval=500, save_interval=60_000
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(OFFLINE, finetune=FINETUNE, description=__doc__))
