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
- `commands`: ``train``, ``evaluate``; `policy`: ``load_policy``, ``evaluate_policy`` (a trained model
  in a user's hands); `outputs`: video, export; `held_warnings`: the warnings held
  back while a run is checked.
- `zoo`: tuned settings per algorithm and env id (``border_py/zoo/*.yaml``).
- `tune`: hyperparameter search with Optuna (the ``tune`` extra).
- `cli`: the ``border-py`` command; `program`: ``run_cli``, its flags
  for an experiment built in Python (the example programs).

Names are imported on first use, as ``border_py``'s are: ``import border_py.run`` imports neither
torch nor the CLI, and torch is imported when a run is built (an agent, a buffer, a trainer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from border_py.lazy import lazy_face

if TYPE_CHECKING:
    from border_py.run.codec import (
        apply_overrides,
        dump_experiment,
        experiment_from_dict,
        experiment_to_dict,
        load_experiment,
    )
    from border_py.run.commands import TrainOptions, prepare, train
    from border_py.run.experiment import AnyExperiment, Experiment, OfflineExperiment, with_trainer
    from border_py.run.policy import Action, Evaluation, Memory, Policy, evaluate_policy, load_policy
    from border_py.run.program import run_cli
    from border_py.run.rundir import RunDir
    from border_py.run.saved import evaluate, load_agent

_EXPORTS: dict[str, str] = {
    "apply_overrides": "border_py.run.codec",
    "dump_experiment": "border_py.run.codec",
    "experiment_from_dict": "border_py.run.codec",
    "experiment_to_dict": "border_py.run.codec",
    "load_experiment": "border_py.run.codec",
    "TrainOptions": "border_py.run.commands",
    "prepare": "border_py.run.commands",
    "train": "border_py.run.commands",
    "AnyExperiment": "border_py.run.experiment",
    "Experiment": "border_py.run.experiment",
    "OfflineExperiment": "border_py.run.experiment",
    "with_trainer": "border_py.run.experiment",
    "Action": "border_py.run.policy",
    "Evaluation": "border_py.run.policy",
    "Memory": "border_py.run.policy",
    "Policy": "border_py.run.policy",
    "evaluate_policy": "border_py.run.policy",
    "load_policy": "border_py.run.policy",
    "run_cli": "border_py.run.program",
    "RunDir": "border_py.run.rundir",
    "evaluate": "border_py.run.saved",
    "load_agent": "border_py.run.saved",
}
"""Each public name and the module that defines it."""

if not TYPE_CHECKING:  # mypy would take a module __getattr__ as "any attribute exists"
    __getattr__, __dir__ = lazy_face(__name__, _EXPORTS, globals())


def load_experiment_text(text: str, source: str = "experiment") -> AnyExperiment:
    """An experiment from YAML text (see `border_py.run.codec`).

    Raises:
        border_py.ConfigError: not valid YAML or not a valid experiment.
    """
    from border_py.config import parse_yaml
    from border_py.run.codec import experiment_from_dict

    return experiment_from_dict(parse_yaml(text, source), source)


__all__ = [
    "Action",
    "AnyExperiment",
    "Evaluation",
    "Experiment",
    "Memory",
    "OfflineExperiment",
    "Policy",
    "RunDir",
    "TrainOptions",
    "apply_overrides",
    "dump_experiment",
    "evaluate",
    "evaluate_policy",
    "experiment_from_dict",
    "experiment_to_dict",
    "load_agent",
    "load_experiment",
    "load_experiment_text",
    "load_policy",
    "prepare",
    "run_cli",
    "train",
    "with_trainer",
]
