"""The offline examples' shared protocol: learn from pendulum-medium-v0, evaluate in Pendulum-v1.

``bc_pendulum``, ``iql_pendulum``, ``awac_pendulum``, ``cql_pendulum`` and ``td3bc_pendulum`` differ only in
their agent: each trains 20,000 gradient steps on the dataset, evaluates 10 greedy episodes every 1,000 and
saves a checkpoint every 5,000, as the zoo's entries for ``pendulum-medium-v0`` do.

The dataset is a local Minari dataset in ``runs/datasets`` (no dataset hub is reachable offline): ``make
datasets`` builds it (about 10 minutes), or write your own (docs: "Offline RL from your own dataset").
"""

from border_py import GymEnvConfig, TrainerConfig
from border_py.datasets import MinariDatasetConfig

EVAL_ENV = GymEnvConfig(name="Pendulum-v1")
"""Where the agent is evaluated (and whose spaces it is built from)."""

DATASET = MinariDatasetConfig(dataset_id="pendulum-medium-v0", data_path="runs/datasets")
"""100,000 transitions of a partly trained SAC policy acting stochastically (mean return about -470; a
fully trained policy's is about -130, a random one's about -1,200)."""

SCHEDULE = TrainerConfig(max_opts=20_000, eval_interval=1_000, record_interval=500, save_interval=5_000)
"""In gradient steps (opt steps): there are no env steps to count offline."""
