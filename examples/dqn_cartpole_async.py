"""DQN on CartPole-v1 with its env steps collected by 2 actors on a local Ray (the ``distributed`` extra).

    python -m examples.dqn_cartpole_async --train    # into runs/dqn/CartPole-v1/seed0, as the synchronous run
    python -m examples.dqn_cartpole_async --eval

``examples/dqn_cartpole.py``'s experiment with actors: each acts with a copy of the Q-network, published
every 25 opt steps, and the learner still takes one opt step per 2 env steps (a rate limiter holds it to
that whatever the actors' speed). The zoo's ``async`` variant: ``border-py train dqn --env CartPole-v1
--variant async``. To join a running cluster: ``--set distributed.address=HOST:PORT``.
"""

import sys

import attrs

from border_py.distributed import AsyncConfig
from border_py.run import run_cli
from examples.dqn_cartpole import EXPERIMENT as SYNCHRONOUS

EXPERIMENT = attrs.evolve(SYNCHRONOUS, distributed=AsyncConfig(n_actors=2, actor_steps=32, sync_interval=25))

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
