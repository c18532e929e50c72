"""``border-py tune``: hyperparameter search with Optuna over the zoo's search space (the ``tune`` extra).

::

    border-py tune dqn --env CartPole-v1 --trials 50 --storage sqlite:///runs/tune.db

- Each trial is a run of its own in ``<out>/trial_<n>`` (its ``best/``, checkpoints and curves), trained
  by the same code as ``border-py train`` with the zoo entry (and ``--set``) as its base.
- TPE samples the zoo's ``search:`` space; a median pruner hears every evaluation through the trainer's
  observer hook and stops a trial whose score is below the median of earlier trials at that opt step.
- The study lives in the storage (SQLite) and resumes: running the command again continues it, and
  several processes running it share the work. ``--trials`` counts finished trials (complete or pruned),
  whichever process ran them.
- A trial stopped before it finished is retried with its own parameters in its own run directory,
  resuming from its newest checkpoint (from scratch without one), up to 3 times (Optuna's
  ``RetryHeartbeatStaleTrialCallback``). Ctrl-C or SIGTERM while a trial trains saves a checkpoint, queues
  the retry at once and exits with 128 + the signal number: the same command goes on with it first. A
  process killed outright (SIGKILL, or SIGTERM between trials) leaves its trial running in the study
  until its heartbeat is older than twice ``--heartbeat`` seconds; the next trial to start in any process
  of the study then retries it.
- The base is checked as ``train`` checks it (every component built once, writing nothing) before the
  study is made; two trials in a row that fail alike (numbers aside) stop the study, naming the reason.
- The study records the command and the base experiment; a study of another base is refused. The best
  trial is written as ``<out>/best.yaml``, which ``border-py train --config`` reads as it is.

A trial's value is its last evaluation's score (what the pruner compared), not the best of its noisy
evaluations.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shlex
import signal
import sys
import warnings
from pathlib import Path
from typing import Any

import attrs
import yaml

from border_py.config import ConfigError
from border_py.run import arguments, codec, zoo
from border_py.trainer.interrupts import TrainingInterrupted

MAX_RETRIES = 3
"""How often a trial stopped before it finished (killed or interrupted) is retried."""


def add_tune_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``border-py tune``."""
    parser.add_argument("algo", help="the algorithm, whose zoo file holds the search space")
    parser.add_argument("--env", required=True, help="the env id (its zoo entry is the base experiment)")
    parser.add_argument("--variant", help="a variant of the zoo entry")
    parser.add_argument("--trials", type=int, required=True, help="finished trials the study should hold")
    parser.add_argument("--storage", required=True, help="Optuna storage URL (sqlite:///runs/tune.db)")
    parser.add_argument("--study", help="study name (default: <algo>-<env>)")
    parser.add_argument("--out", type=Path, help="trial run directories (default: runs/tune/<study>)")
    parser.add_argument("--sampler-seed", type=int, help="TPE's seed (default: random)")
    parser.add_argument("--startup-trials", type=int, default=5, help="trials before TPE and the pruner act")
    parser.add_argument("--heartbeat", type=int, default=10, help="seconds between a trial's heartbeats")


@attrs.frozen(kw_only=True)
class TuneSetup:
    """What every trial shares."""

    base: dict[str, Any]
    """The base experiment as plain data (the zoo entry with ``--set``)."""
    source: str
    """Where the base came from."""
    space: dict[str, Any]
    """Dotted field -> distribution: ``{float: [lo, hi], log: true}``, ``{int: [lo, hi]}``,
    ``{choice: [...]}``."""
    out: Path
    """Where the trials' run directories go."""


def _choice(value: Any) -> Any:
    """Optuna's categorical choices are scalars: lists (layer sizes) travel as YAML text."""
    return value if value is None or isinstance(value, bool | int | float | str) else json.dumps(value)


def decode(value: Any, where: str) -> Any:
    """A sampled value as the experiment takes it (a list that travelled as text is a list again); a text
    opening with ``[`` that is not JSON (a damaged study) is a `ConfigError` naming ``where``."""
    if not (isinstance(value, str) and value[:1] == "["):
        return value
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError) as exc:  # RecursionError: nested deeper than json reads
        raise ConfigError(f"{where}: {value!r:.80} is not a list: {type(exc).__name__}") from exc


def suggest(trial: Any, key: str, spec: Any) -> Any:
    """The trial's value for ``key`` from its distribution ``spec`` (a retried trial's fixed value is
    checked against it: `checked_param`).

    Raises:
        ConfigError: ``spec`` is not a known distribution, or the value lies outside it.
    """
    if isinstance(spec, dict) and "float" in spec:
        low, high = spec["float"]
        value = trial.suggest_float(key, float(low), float(high), log=bool(spec.get("log", False)))
    elif isinstance(spec, dict) and "int" in spec:
        low, high = spec["int"]
        value = trial.suggest_int(key, int(low), int(high), log=bool(spec.get("log", False)))
    elif isinstance(spec, dict) and isinstance(spec.get("choice"), list):
        choices = [_choice(c) for c in spec["choice"]]
        value = decode(trial.suggest_categorical(key, choices), f"trial {trial.number}: {key}")
    else:
        raise ConfigError(
            f"search space {key}: {spec!r} is not {{float: [lo, hi]}}, {{int: [lo, hi]}} or {{choice: [...]}}"
        )
    return checked_param(key, spec, value, f"trial {trial.number}")


def checked_param(key: str, spec: Any, value: Any, where: str) -> Any:
    """``value`` if its distribution ``spec`` can draw it. A study is data: a parameter a poisoned study
    holds (another field, an import path) never reaches an experiment.

    Raises:
        ConfigError: it cannot (``where`` and the key named).
    """
    if "choice" in spec:
        ok = value in spec["choice"]
    else:
        low, high = spec["float"] if "float" in spec else spec["int"]
        kind = float if "float" in spec else int
        ok = isinstance(value, kind) and not isinstance(value, bool) and low <= value <= high
    if not ok:
        raise ConfigError(f"{where}: {key} = {value!r} is not in the search space's {spec!r}: refused")
    return value


def _trial_dir(setup: TuneSetup, trial: Any) -> tuple[Path, bool]:
    """The trial's run directory (``<out>/trial_NNNN``) and whether it is a retry of a killed trial, which
    trains on in the killed one's directory (the retry inherits its user attributes). The study names
    only the directory's name, and only one of this form: it never picks a directory elsewhere. A trial
    trains with ``--overwrite``: a link planted at its name is refused, before anything is written.

    Raises:
        ConfigError: the study names another directory.
        PermissionError: the directory is a symbolic link, or resolves outside ``--out``.
    """
    named = trial.user_attrs.get("model_dir")
    if named is None:
        name = f"trial_{trial.number:04d}"
        trial.set_user_attr("model_dir", name)
    else:
        name = Path(str(named)).name  # an older border_py stored <out>/trial_NNNN whole
        inside = Path(str(named)) == Path(name) or Path(str(named)).parent.resolve() == setup.out.resolve()
        if not (inside and re.fullmatch(r"trial_\d{4,}", name)):
            raise ConfigError(f"trial {trial.number}: the study names the run directory {named!r}, not "
                              f"{setup.out}/trial_NNNN: refused")  # fmt: skip
    path = setup.out / name
    if path.is_symlink() or path.resolve().parent != setup.out.resolve():
        raise PermissionError(f"trial {trial.number}: its run directory {path} is a symbolic link (or lies "
                              f"outside --out {setup.out}): refused, nothing written or removed")  # fmt: skip
    return path, named is not None


def with_params(base: dict[str, Any], params: dict[str, Any], source: str) -> dict[str, Any]:
    """``base`` with each dotted parameter set (checked like ``--set``)."""
    return codec.apply_overrides(base, [f"{k}={json.dumps(v)}" for k, v in params.items()], source)


class RepeatedFailureError(Exception):
    """Two trials in a row failed for the same reason: the study stops, naming it (not one of the errors
    the study catches per trial)."""


def check_base(base: dict[str, Any], source: str) -> None:
    """``train``'s own checks on the study's base experiment, once, before any trial: a budget or a field
    that ``train`` refuses is refused here in ``train``'s one line, before the study is made.

    Raises:
        ConfigError: a field or a check failed (``train``'s message).
    """
    import tempfile

    from border_py.run.commands import prepare

    with tempfile.TemporaryDirectory() as scratch:  # prepare writes nothing; the run needs a directory
        experiment = codec.experiment_from_dict(
            with_params(base, {"trainer.model_dir": scratch}, source), source
        )
        with prepare(experiment, source=source):
            pass


def _objective(setup: TuneSetup, interrupted: list[int], stopped: list[int] | None = None) -> Any:
    """The objective; it appends the number of a trial a signal stopped to ``interrupted``, and of one
    whose error stops the study (which the command says in one line) to ``stopped``."""
    import optuna

    from border_py.run.commands import TrainOptions, train
    from border_py.run.rundir import RunDir
    from border_py.trainer.result import Evaluation

    failures: list[str] = []
    said = [] if stopped is None else stopped

    def objective(trial: optuna.Trial) -> float:
        try:
            return run_trial(trial)
        except (TrainingInterrupted, KeyboardInterrupt):
            interrupted.append(trial.number)
            raise
        except optuna.TrialPruned:
            raise
        except (ConfigError, ValueError, RuntimeError) as exc:
            # The same failure twice in a row is the study's, not a trial's: stop instead of failing every
            # trial (numbers aside: the trial's own, its directory's, a sampled value).
            reason = f"{type(exc).__name__}: {re.sub(r'[0-9.e+-]+', '#', str(exc))}"
            if failures and failures[-1] == reason:
                said.append(trial.number)
                raise RepeatedFailureError(
                    f"trials {trial.number - 1} and {trial.number} failed alike: {exc}"
                ) from exc
            failures.append(reason)
            raise
        except Exception:  # not one of the errors the study catches: it stops the study, said once
            said.append(trial.number)
            raise

    def run_trial(trial: optuna.Trial) -> float:
        params = {key: suggest(trial, key, spec) for key, spec in setup.space.items()}
        model_dir, retried = _trial_dir(setup, trial)
        data = with_params(
            setup.base, {**params, "trainer.model_dir": str(model_dir)}, f"trial {trial.number}"
        )
        experiment = codec.experiment_from_dict(data, f"{setup.source}, trial {trial.number}")

        def hear(evaluation: Evaluation) -> bool:
            trial.report(evaluation.score, evaluation.opt_steps)
            return bool(trial.should_prune())

        resume = retried and RunDir(model_dir).resume_point() is not None
        options = TrainOptions(
            resume=resume, overwrite=not resume, progress=False, observers=(hear,), quiet=True
        )
        result = train(experiment, options)
        if result.stop_reason == "observer":
            raise optuna.TrialPruned(f"score {result.last_score} at opt step {result.opt_steps}")
        if result.last_score is None:
            raise ConfigError(f"trial {trial.number}: no evaluation ran (set trainer.eval_interval)")
        return result.last_score

    return objective


def _study(tuning: arguments.TuneRequest, setup: TuneSetup, name: str) -> Any:
    import optuna
    from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback

    with warnings.catch_warnings():
        # Heartbeats and the retry callback are marked experimental in Optuna; they are what resuming a
        # killed trial rests on, and this code uses them as documented.
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        storage = RDBStorage(
            tuning.storage,
            heartbeat_interval=tuning.heartbeat,
            grace_period=2 * tuning.heartbeat,
            heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback(max_retry=MAX_RETRIES),
        )
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=tuning.sampler_seed, n_startup_trials=tuning.startup_trials),
        pruner=optuna.pruners.MedianPruner(n_startup_trials=tuning.startup_trials),
        load_if_exists=True,
    )
    recorded = study.user_attrs.get("base_config")
    if recorded is None:
        study.set_user_attr("base_config", setup.base)
        study.set_user_attr("search_space", setup.space)
        study.set_user_attr("command", shlex.join(["border-py", "tune", *sys.argv[2:]]))
    elif recorded != json.loads(json.dumps(setup.base)):
        raise ConfigError(
            f"study {name!r} in {tuning.storage} tunes another base experiment (its command: "
            f"{study.user_attrs.get('command')}); give another --study or the same settings"
        )
    return study


def write_best(study: Any, setup: TuneSetup) -> Path | None:
    """The best complete trial as an experiment YAML (``<out>/best.yaml``); ``None`` when none completed."""
    import optuna

    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not complete:
        return None
    best = max(complete, key=lambda t: t.value)
    where = f"{study.study_name}, best trial {best.number}"
    unknown = sorted(set(best.params) - set(setup.space))
    if unknown:
        raise ConfigError(f"{where}: the parameters {unknown} are not in the search space: refused")
    space, stored = setup.space, best.params
    params = {k: checked_param(k, space[k], decode(v, f"{where}: {k}"), where) for k, v in stored.items()}
    data = with_params(setup.base, params, f"best trial {best.number}")
    data = {**data, "trainer": {**data["trainer"], "model_dir": None}}
    path = setup.out / "best.yaml"
    header = f"# best trial {best.number} of study {study.study_name}: value {best.value:.4g}\n"
    path.write_text(header + yaml.safe_dump(data, sort_keys=False))
    return path


class _QuietInterrupted(logging.Filter):
    """Drops Optuna's warnings (a traceback) for a trial a signal stopped or whose error stopped the study:
    `_retry_interrupted` or the command's error says what happened, in one line."""

    def __init__(self, *numbers: list[int]) -> None:
        super().__init__()
        self.numbers = numbers

    def filter(self, record: logging.LogRecord) -> bool:
        said = [n for numbers in self.numbers for n in numbers]
        return not any(record.getMessage().startswith(f"Trial {n} failed") for n in said)


def _retry_interrupted(study: Any, interrupted: list[int], exc: BaseException) -> int:
    """Queues the retry of the trial a signal stopped (Optuna has marked it failed), as a stale heartbeat
    would, says so and returns the exit status: 128 + the signal number."""
    import optuna
    from optuna.storages import RetryHeartbeatStaleTrialCallback as Retry

    signum = exc.signum if isinstance(exc, TrainingInterrupted) else int(signal.SIGINT)
    name = signal.Signals(signum).name
    if not interrupted:  # between trials: none was running
        print(f"tuning interrupted by {name} between trials", file=sys.stderr)
        return 128 + signum
    trial = next(t for t in study.get_trials(deepcopy=False) if t.number == interrupted[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # as in _study
        queued = len(Retry.retry_history(trial)) < MAX_RETRIES
        Retry(max_retry=MAX_RETRIES)(study, trial)  # it queues nothing past MAX_RETRIES
    where = f"{exc}" if isinstance(exc, TrainingInterrupted) else f"{name} received"
    then = (
        "it is retried from there: run the same border-py tune command to go on"
        if queued
        else f"it was retried {MAX_RETRIES} times already and is not retried again"
    )
    print(f"trial {trial.number}: {where}; {then}", file=sys.stderr)
    return 128 + signum


def tune_command(tuning: arguments.TuneRequest) -> int:
    """Runs ``border-py tune``: the study until it holds ``--trials`` finished trials; writes the best."""
    import optuna

    if tuning.trials < 1:
        raise ConfigError(f"--trials must be >= 1, got {tuning.trials}")
    entry = zoo.entry(tuning.algo, tuning.env, tuning.variant)
    base = codec.apply_overrides(entry.data, tuning.overrides)
    name = tuning.study or f"{tuning.algo}-{tuning.env.replace('/', '-')}"
    setup = TuneSetup(
        base=base,
        source=entry.source,
        space=zoo.search_space(tuning.algo),
        out=tuning.out or Path("runs/tune") / name,
    )
    check_base(base, entry.source)  # a base train refuses fails here, before any trial
    setup.out.mkdir(parents=True, exist_ok=True)
    study = _study(tuning, setup, name)
    finished = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)  # a killed worker's trial is retried first
    interrupted: list[int] = []
    stopped: list[int] = []
    quiet = _QuietInterrupted(interrupted, stopped)
    handlers = logging.getLogger("optuna").handlers  # a logger's own filters miss its children's records
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        if sum(t.state in finished for t in study.trials) < tuning.trials:
            study.optimize(
                _objective(setup, interrupted, stopped),
                callbacks=[optuna.study.MaxTrialsCallback(tuning.trials, states=finished)],
                catch=(ConfigError, ValueError, RuntimeError),
            )
    except (TrainingInterrupted, KeyboardInterrupt) as exc:
        return _retry_interrupted(study, interrupted, exc)
    except RepeatedFailureError as exc:
        raise ConfigError(f"study {name} stopped: {exc}") from exc
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)
    best = write_best(study, setup)
    counts = {s.name.lower(): sum(t.state == s for t in study.trials) for s in optuna.trial.TrialState}
    print(f"study {name}: " + ", ".join(f"{n} {k}" for k, n in counts.items() if n))
    print(f"best trial written to {best} (border-py train --config {best})" if best else "no trial completed")
    return 0
