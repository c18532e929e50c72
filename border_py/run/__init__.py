"""The application layer: an experiment is data, one CLI runs it, the run directory has one owner.

The run path, as plain as the data path:

    border-py train dqn --env CartPole-v1          (border_py.run.cli)
      → the zoo's tuned experiment for dqn on CartPole-v1, --set overrides  (zoo, codec)
      → Experiment / OfflineExperiment: every component's config          (experiment)
      → RunDir: lock, resume point, checks, then --overwrite and config.yaml  (rundir)
      → Trainer / OfflineTrainer / AsyncTrainer: prepare (every check), run  (commands)

- `experiment`: ``Experiment``, ``OfflineExperiment``.
- `codec`: experiments to and from YAML, ``--set key=value`` overrides.
- `rundir`: ``RunDir``, the model directory's one owner.
- `commands`: ``train``, ``evaluate``; `outputs`: video, export.
- `zoo`: tuned settings per algorithm and env id (``border_py/zoo/*.yaml``).
- `tune`: hyperparameter search with Optuna (the ``tune`` extra).
- `cli`: the ``border-py`` command; `program`: ``run_cli``, its flags
  for an experiment built in Python (the example programs).
"""

from __future__ import annotations

from border_py.config import parse_yaml
from border_py.run.codec import (
    apply_overrides,
    dump_experiment,
    experiment_from_dict,
    experiment_to_dict,
    load_experiment,
)
from border_py.run.commands import TrainOptions, prepare, train
from border_py.run.experiment import AnyExperiment, Experiment, OfflineExperiment, with_trainer
from border_py.run.program import run_cli
from border_py.run.rundir import RunDir
from border_py.run.saved import evaluate, load_agent


def load_experiment_text(text: str, source: str = "experiment") -> AnyExperiment:
    """An experiment from YAML text (see `border_py.run.codec`).

    Raises:
        border_py.ConfigError: not valid YAML or not a valid experiment.
    """
    return experiment_from_dict(parse_yaml(text, source), source)


__all__ = [
    "AnyExperiment",
    "Experiment",
    "OfflineExperiment",
    "RunDir",
    "TrainOptions",
    "apply_overrides",
    "dump_experiment",
    "evaluate",
    "experiment_from_dict",
    "experiment_to_dict",
    "load_agent",
    "load_experiment",
    "load_experiment_text",
    "prepare",
    "run_cli",
    "train",
    "with_trainer",
]
