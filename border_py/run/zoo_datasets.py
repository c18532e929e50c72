"""The zoo's offline datasets, built reproducibly with border_py's own online agents (``make datasets``).

    border-py datasets                 # pendulum-medium, pendulum-replay, cartpole-medium (about 10 min)
    border-py datasets --only hopper   # MuJoCo Hopper-v5 (slow: SAC to a third of expert)

Each dataset is written with `border_py.datasets.collect` (Minari's format) under ``--out``
(``runs/datasets``, where the zoo's offline entries look), with the behaviour policy's mean return and the
reference scores of the D4RL normalisation in its metadata: ``ref_min_score`` a uniformly random policy's
mean return, ``ref_max_score`` a fully trained policy's (measured here over ``--ref-episodes`` episodes; for
Hopper, D4RL's reference expert return, stated as such).

- ``pendulum-medium-v0``: SAC (the zoo's Pendulum-v1 entry) stopped after 2,500 updates, acting
  stochastically (train mode), 100,000 transitions (its mean return is about -470; the fully trained
  policy's about -130, a random one's about -1,200).
- ``pendulum-replay-v0``: the replay buffer of that same SAC run up to that point (2,756 transitions).
- ``cartpole-medium-v0``: DQN (the zoo's CartPole-v1 entry) stopped after 2,500 opt steps, greedy with 10 %
  random actions, 100,000 transitions.
- ``hopper-medium-v0``: SAC on Hopper-v5 stopped at its first greedy evaluation of a third of D4RL's expert
  return or more (every 10,000 updates, at most 300,000), stochastic, 200,000 transitions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import gymnasium as gym
import numpy as np

from border_py.base.policy import Policy
from border_py.checkpoint import load_meta
from border_py.cli_parser import Parser
from border_py.envs import Act, GymEnvConfig, Obs
from border_py.evaluator import DefaultEvaluatorConfig
from border_py.model_dir import latest_checkpoint
from border_py.run import zoo
from border_py.run.experiment import AnyExperiment, with_trainer
from border_py.trainer.config import TrainerConfig

if TYPE_CHECKING:  # building a dataset imports torch; ``border-py datasets --help`` does not
    from border_py.datasets import CollectionReport


class RandomPolicy:
    """Uniform actions of a Gymnasium space, seeded."""

    def __init__(self, space: gym.Space[Any], seed: int) -> None:
        self.space = space
        self.space.seed(seed)

    def sample(self, obs: Obs) -> Act:
        return np.asarray(self.space.sample())


def mean_return(policy: Policy[Obs, Act], env: GymEnvConfig, episodes: int) -> float:
    """The policy's mean return over evaluation episodes ``0 .. episodes - 1``."""
    with closing(env.build(seed=1_000)) as e:
        score, _ = DefaultEvaluatorConfig(n_episodes=episodes).build(e).evaluate(policy)
    return score


def _train(algo: str, env_id: str, model_dir: Path, **trainer: Any) -> Any:
    """Trains the zoo's ``algo`` on ``env_id`` (``trainer`` fields changed) into ``model_dir`` (from
    scratch, unless a finished run of it is there already) and returns the agent loaded from the run's
    final checkpoint: the one at ``max_opts``, or the one written where ``stop_score`` stopped the run."""
    from border_py.run.commands import TrainOptions, train
    from border_py.run.saved import load_agent

    experiment: AnyExperiment = zoo.experiment(algo, env_id, str(model_dir), trainer=trainer)
    experiment = with_trainer(experiment, save_interval=experiment.trainer.max_opts)
    final = _final_checkpoint(model_dir, experiment.trainer)
    if final is None:
        train(experiment, TrainOptions(progress=False, overwrite=True, quiet=True))
        final = _final_checkpoint(model_dir, experiment.trainer)
        if final is None:  # e.g. stopped by max_env_steps: no behaviour policy to collect with
            raise RuntimeError(f"{model_dir}: the training run ended without a final checkpoint")
    with closing(experiment.eval_env().build(0)) as env:
        return load_agent(experiment, final, env)


def _final_checkpoint(model_dir: Path, trainer: TrainerConfig) -> Path | None:
    """The newest checkpoint in ``model_dir`` when it ends a run of ``trainer``: at ``max_opts``, or
    evaluated at ``stop_score`` or above (``None`` otherwise)."""
    newest = latest_checkpoint(model_dir)
    if newest is None:
        return None
    meta = load_meta(newest)
    done = trainer.max_opts is not None and int(meta["opt_steps"]) >= trainer.max_opts
    score = meta.get("score")
    reached = trainer.stop_score is not None and score is not None and float(score) >= trainer.stop_score
    return newest if done or reached else None


def pendulum(out: Path, work: Path, episodes: int) -> list[CollectionReport]:
    """pendulum-medium-v0 and pendulum-replay-v0."""
    from border_py.datasets import DatasetInfo, collect
    from border_py.replay_buffer.dataset import load_columns

    env = GymEnvConfig(name="Pendulum-v1")
    expert = _train("sac", "Pendulum-v1", work / "sac_pendulum_expert")
    refs = (
        mean_return(RandomPolicy(gym.make("Pendulum-v1").action_space, 0), env, episodes),
        mean_return(expert, env, episodes),
    )
    medium = _train("sac", "Pendulum-v1", work / "sac_pendulum_medium", max_opts=2_500)
    medium.train()  # stochastic actions
    reports = [
        collect(
            medium,
            env,
            100_000,
            "pendulum-medium-v0",
            seed=0,
            info=DatasetInfo(
                description="SAC after 2,500 updates, stochastic.",
                algorithm_name="border_py SAC",
                ref_scores=refs,
            ),
            data_path=str(out),
        ),
    ]
    columns = load_columns(work / "sac_pendulum_medium" / "2500" / "replay_buffer.npz")
    reports.append(_replay_dataset(columns, env, "pendulum-replay-v0", refs, out))
    return reports


def _replay_dataset(
    columns: dict[str, Any], env: GymEnvConfig, dataset_id: str, refs: tuple[float, float], out: Path
) -> CollectionReport:
    """A replay buffer's transitions (in the order pushed, one env) replayed as a policy: each step takes
    the stored action, so the dataset is exactly the buffer's episodes."""
    from border_py.datasets import DatasetInfo, collect

    class Replay:
        def __init__(self) -> None:
            self.t = 0

        def sample(self, obs: Obs) -> Act:
            act: Act = columns["act"][self.t]
            self.t += 1
            return act

    return collect(
        Replay(),
        env,
        len(columns["act"]),
        dataset_id,
        seed=0,
        info=DatasetInfo(
            description="The replay buffer of SAC's first 2,500 updates.",
            algorithm_name="border_py SAC",
            ref_scores=refs,
        ),
        data_path=str(out),
    )


def cartpole(out: Path, work: Path, episodes: int) -> list[CollectionReport]:
    """cartpole-medium-v0."""
    from border_py.datasets import DatasetInfo, collect

    env = GymEnvConfig(name="CartPole-v1")
    refs = (mean_return(RandomPolicy(gym.make("CartPole-v1").action_space, 0), env, episodes), 500.0)
    medium = _train("dqn", "CartPole-v1", work / "dqn_cartpole_medium", max_opts=2_500)
    return [
        collect(
            medium,
            env,
            100_000,
            "cartpole-medium-v0",
            seed=0,
            epsilon=0.1,
            info=DatasetInfo(
                description="DQN after 2,500 opt steps, greedy with 10 % random actions.",
                algorithm_name="border_py DQN",
                ref_scores=refs,
            ),
            data_path=str(out),
        )
    ]


def hopper(out: Path, work: Path, episodes: int) -> list[CollectionReport]:
    """hopper-medium-v0 (slow)."""
    from border_py.datasets import DatasetInfo, collect

    env = GymEnvConfig(name="Hopper-v5")
    trainer = {"max_opts": 300_000, "max_env_steps": None, "stop_score": HOPPER_MEDIUM}
    medium = _train("sac", "Hopper-v5", work / "sac_hopper_medium", **trainer)
    medium.train()  # stochastic actions
    random_return = mean_return(RandomPolicy(gym.make("Hopper-v5").action_space, 0), env, episodes)
    return [
        collect(
            medium,
            env,
            200_000,
            "hopper-medium-v0",
            seed=0,
            info=DatasetInfo(
                description=f"SAC stopped at its first greedy evaluation >= {HOPPER_MEDIUM}, stochastic.",
                algorithm_name="border_py SAC",
                ref_scores=(random_return, D4RL_HOPPER_EXPERT),
            ),
            data_path=str(out),
        )
    ]


D4RL_HOPPER_EXPERT = 3234.3
"""D4RL's reference expert return for Hopper (``ref_max_score`` of its hopper datasets): a fully trained
Hopper policy takes about a million SAC updates, which this script does not run."""

HOPPER_MEDIUM = 1_078.0
"""A third of `D4RL_HOPPER_EXPERT`: the behaviour SAC run stops at its first greedy evaluation this
good (after 60,000 updates it was at 499, a sixth)."""

BUILDERS: dict[str, Callable[[Path, Path, int], list[CollectionReport]]] = {
    "pendulum": pendulum,
    "cartpole": cartpole,
    "hopper": hopper,
}


def parser(prog: str = "border-py datasets") -> argparse.ArgumentParser:
    """The command line's parser (``border-py datasets`` hands it its arguments)."""
    parser = Parser(prog=prog, description=__doc__)
    parser.add_argument("--only", nargs="+", choices=sorted(BUILDERS), default=["pendulum", "cartpole"])
    parser.add_argument(
        "--out", type=Path, default=Path("runs/datasets"), help="the Minari datasets' directory"
    )
    parser.add_argument("--work", type=Path, default=Path("runs/datasets-work"), help="the behaviour runs")
    parser.add_argument("--ref-episodes", type=int, default=100, help="episodes of the reference scores")
    return parser


WRITES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "pendulum": (
        ("pendulum-medium-v0", "pendulum-replay-v0"),
        ("sac_pendulum_expert", "sac_pendulum_medium"),
    ),
    "cartpole": (("cartpole-medium-v0",), ("dqn_cartpole_medium",)),
    "hopper": (("hopper-medium-v0",), ("sac_hopper_medium",)),
}
"""What each builder writes: its datasets under ``--out``, its behaviour runs under ``--work``."""


def main(argv: list[str] | None = None, prog: str = "border-py datasets") -> int:
    """Builds the chosen datasets and prints a line per dataset.

    Raises:
        NotADirectoryError, FileExistsError: bad paths (see `_directory`), before anything trains; the
            CLI says them in one line.
    """
    args = parser(prog).parse_args(argv)
    out, work = _directory("--out", args.out), _directory("--work", args.work)
    _refuse_what_it_would_replace(args.only, out, work)
    from border_py.datasets import datasets_path  # torch: after the flags are read (and --help said)

    out.mkdir(parents=True, exist_ok=True)
    with datasets_path(str(out)):
        for name in args.only:
            for report in BUILDERS[name](out, work, args.ref_episodes):
                print(attrs.asdict(report), flush=True)
    return 0


def _directory(flag: str, path: Path) -> Path:
    """``path`` as the OS resolves it: a link the user named is followed, and ``..`` after a link leads to
    the parent of its target, not back (Minari is given the path, the training runs its folders: both
    must mean one place).

    Raises:
        NotADirectoryError: a part of ``path`` is a file (``runs/file/..`` included).
    """
    part = Path()
    for piece in path.parts:
        part = part / piece
        if part.exists() and not part.is_dir():
            raise NotADirectoryError(f"{flag} {path}: {part} is a file, not a directory")
    return path.resolve()


def _refuse_what_it_would_replace(only: list[str], out: Path, work: Path) -> None:
    """A dataset is written, and a behaviour run trains, into folders of the command's own naming: never
    through a link planted there (a run with ``overwrite`` would clear what it points to), and never over
    a dataset already built (Minari refuses it, after the training).

    Raises:
        FileExistsError: a dataset folder exists, or a dataset or run folder is a symbolic link.
    """
    for name in only:
        ids, runs = WRITES[name]
        for folder in [out / i for i in ids] + [work / r for r in runs]:
            if folder.is_symlink():
                raise FileExistsError(
                    f"{folder} is a symbolic link: border-py datasets never writes through one"
                )
        for folder in (out / i for i in ids):
            if folder.exists():
                raise FileExistsError(
                    f"dataset {folder} exists already: remove it to build it again, or give another --out"
                )


if __name__ == "__main__":
    sys.exit(main())
