"""``border-py``: train, resume, evaluate, record, export, plot and tune, by algorithm and env id.

::

    border-py train dqn --env CartPole-v1           # the zoo's settings, into runs/dqn/CartPole-v1/seed0
    border-py train sac --env Hopper-v5 --set trainer.max_env_steps=200000 --seed 1
    border-py train --config my_experiment.yaml           # a whole experiment from YAML
    border-py resume --model-dir runs/dqn/CartPole-v1/seed0 --set trainer.max_opts=40000
    border-py eval --model-dir runs/dqn/CartPole-v1/seed0 [--checkpoint 20000] [--episodes 100] [--sample]
    border-py video --model-dir runs/dqn/CartPole-v1/seed0 --out cartpole.mp4
    border-py export --model-dir runs/dqn/CartPole-v1/seed0 --out exported/cartpole
    border-py upload --model-dir runs/dqn/CartPole-v1/seed0 # what an MLflow server that was away did not get
    border-py plot runs/dqn --out curves.png
    border-py tune dqn --env CartPole-v1 --trials 50 --storage sqlite:///runs/tune.db
    border-py zoo [dqn [CartPole-v1]]                    # what the zoo holds; an entry's settings
    border-py datasets                                   # the zoo's offline datasets, built here

A user's own env: ``--env mypkg.envs:make_config`` names a function returning an env config (the
algorithm's defaults then apply). Bad input is one line on stderr and exit status 2; Ctrl-C or SIGTERM
while training saves a checkpoint and exits with 128 + the signal number (``border-py resume``
continues); asynchronous actors that keep dying save one too, with exit status 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml

from border_py.cli_parser import Parser
from border_py.config import ConfigError
from border_py.lock import ModelDirBusyError
from border_py.run import arguments, codec, zoo
from border_py.run.experiment import AnyExperiment
from border_py.run.held_warnings import one_line_own_warnings
from border_py.run.recording import RECORDERS
from border_py.trainer.interrupts import (
    ExperienceSourceError,
    Stopped,
    TrainingInterrupted,
    TrainingStalledError,
    sigterm_stops_at_once,
)

REFUSED = (
    ConfigError,
    ModelDirBusyError,
    FileExistsError,
    FileNotFoundError,
    ImportError,
    OSError,
    ValueError,
    TrainingStalledError,
)
"""Errors that are the user's input (a config, a directory, a missing extra, a batch the buffer never
holds so the run stalls): one line, exit 2."""


def add_run_flags(parser: argparse.ArgumentParser, recording: bool = True) -> None:
    """The flags of a command that trains: ``--set`` (repeatable), ``--no-progress`` and, with
    ``recording``, the recorder and MLflow's names and tags."""
    parser.add_argument(
        "--set",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="override fields (agent.lr=3e-4); may be given more than once",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    if not recording:  # tune: each trial records to TensorBoard in its own run directory
        return
    parser.add_argument(
        "--recorder",
        choices=RECORDERS,
        help="TensorBoard, or TensorBoard and MLflow (default: tensorboard; resume: what the run used)",
    )
    parser.add_argument("--experiment", help="the MLflow experiment (default: <algo>-<env>)")
    parser.add_argument("--run-name", help="the MLflow run's name (default: <algo>-<env>-seed<N>)")
    parser.add_argument("--tag", nargs="+", default=[], metavar="KEY=VALUE", help="MLflow run tags")


def parser() -> argparse.ArgumentParser:
    """The ``border-py`` command's parser (the command line reference is written from it)."""
    parser = Parser(prog="border-py", description=__doc__)
    from border_py import __version__

    parser.add_argument("--version", action="version", version=f"border-py {__version__}")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    _add_train(_verb(verbs, "train", "train an algorithm on an env (the zoo's settings) or --config"))
    resume = _verb(verbs, "resume", "continue a run from its newest checkpoint")
    resume.add_argument("--model-dir", type=Path, required=True)
    add_trust_flag(resume)
    add_run_flags(resume)
    for name, text in (
        ("eval", "evaluate a saved model"),
        ("video", "record episodes"),
        ("export", "write the greedy policy as numpy and ONNX files (docs: the exported policy format)"),
    ):
        sub = _verb(verbs, name, text)
        sub.add_argument("--model-dir", type=Path, required=True)
        sub.add_argument("--config", type=Path, help="the experiment (default: model_dir/config.yaml)")
        add_trust_flag(sub)
        add_saved_flags(sub, episodes=name != "export")
        if name != "eval":
            sub.add_argument(
                "--out", type=Path, required=True, help=".mp4/.gif (video), a directory (export)"
            )
        else:
            sub.add_argument(
                "--sample", action="store_true", help="draw actions as in training (RL Zoo's Atari table)"
            )
    upload = _verb(
        verbs, "upload", "send a run's records that its MLflow server did not get (its spill file)"
    )
    upload.add_argument("--model-dir", type=Path, required=True)
    verbs.add_parser("plot", help="learning curves as PNG (border-py plot --help)", add_help=False)
    verbs.add_parser(
        "datasets",
        help="build the zoo's offline datasets in runs/datasets (border-py datasets --help)",
        add_help=False,
    )
    tune = _verb(verbs, "tune", "search hyperparameters with Optuna (the tune extra)")
    from border_py.run.tune import add_tune_flags

    add_tune_flags(tune)
    add_run_flags(tune, recording=False)
    listing = _verb(
        verbs,
        "zoo",
        "list the zoo's algorithms, env ids and variants; with ALGO ENV, print that entry's settings",
    )
    listing.add_argument("algo", nargs="?")
    listing.add_argument("env", nargs="?", help="an env id: print the settings train would use for it")
    listing.add_argument("--variant", help="a named variant of the entry")
    return parser


def _verb(verbs: Any, name: str, text: str) -> argparse.ArgumentParser:
    """The verb ``name``'s parser, ``text`` both its line in ``border-py --help`` and its own ``--help``'s
    description."""
    sub: argparse.ArgumentParser = verbs.add_parser(name, help=text, description=text)
    return sub


def _add_train(train: argparse.ArgumentParser) -> None:
    """``border-py train``'s arguments."""
    train.add_argument("algo", nargs="?", help=f"one of {zoo.algorithms()}")
    train.add_argument(
        "--env",
        help="env id (offline: dataset id); your own: module:EnvId-v0 (the module registers it with "
        "Gymnasium) or module:function (returns an env config)",
    )
    train.add_argument("--variant", help="a named variant of the zoo entry (border-py zoo ALGO lists them)")
    train.add_argument("--config", type=Path, help="a whole experiment as YAML (instead of ALGO --env)")
    train.add_argument("--seed", type=int, help="the run's seed (trainer.seed)")
    train.add_argument("--model-dir", type=Path, help="default: runs/<algo>/<env>/seed<N>")
    train.add_argument("--overwrite", action="store_true", help="remove another run in --model-dir first")
    train.add_argument("--actors", type=int, help="train with N actors on Ray (distributed.n_actors)")
    train.add_argument("--address", help="the Ray cluster to join (distributed.address)")
    add_trust_flag(train)
    add_run_flags(train)


def add_trust_flag(parser: argparse.ArgumentParser) -> None:
    """``--trust-code``: import the modules a file names (``config.yaml``, ``--config``)."""
    parser.add_argument(
        "--trust-code",
        action="store_true",
        help="import the modules the experiment file names (your own env or agent; never for a run you "
        "did not make): without it such a name is refused",
    )


def add_saved_flags(parser: argparse.ArgumentParser, episodes: bool) -> None:
    """The flags of a command that reads a saved model: ``--checkpoint``, ``--device`` and, with
    ``episodes``, ``--episodes``."""
    parser.add_argument(
        "--checkpoint", default="best", help="best (default), a checkpoint (25000), finetune/best"
    )
    if episodes:
        parser.add_argument("--episodes", type=int, help="episodes (eval default: the config's; video: 1)")
    parser.add_argument(
        "--device",
        help="load the model on this device (cpu, cuda, cuda:1) instead of the experiment's agent.device: "
        "a model trained on a GPU, on a machine without one",
    )


def resume_command(request: arguments.ResumeRequest) -> int:
    """``resume``: the run in ``request.model_dir`` from its newest checkpoint, its ``config.yaml`` changed
    by ``--set`` (a Ray cluster's address only from there: the one ``config.yaml`` names is dropped)."""
    data, source = arguments.resume_data(request)
    return train_data(data, source, request.run, resume=True)


def train_data(
    data: dict[str, Any], source: str, flags: arguments.RunFlags, resume: bool, notes: tuple[str, ...] = ()
) -> int:
    """Trains (or resumes) the experiment ``data`` (plain data, its ``trainer.model_dir`` set) as the
    ``flags`` say; ``notes`` are said once the run's checks pass."""
    from border_py.run.commands import TrainOptions, train

    experiment = codec.experiment_from_dict(data, source)
    options = TrainOptions(
        resume=resume,
        overwrite=flags.overwrite,
        progress=flags.progress,
        recorder=flags.recorder or _recorder_of(experiment, resume),
        source=source,
        tracking=flags.tracking(),
        notes=notes,
        trust_code=flags.trust is True,
    )
    train(experiment, options)
    return 0


def _recorder_of(experiment: AnyExperiment, resume: bool) -> Literal["tensorboard", "mlflow"]:
    """The recorder when ``--recorder`` is not given: a resumed run continues with MLflow when it recorded
    to an MLflow run (its id kept in the run directory; the server is ``MLFLOW_TRACKING_URI``'s, never one
    the directory names), else TensorBoard."""
    from border_py.run.commands import model_dir_of
    from border_py.run.recording import recorded_to_mlflow
    from border_py.run.rundir import RunDir

    if resume and recorded_to_mlflow(RunDir(model_dir_of(experiment))):
        return "mlflow"
    return "tensorboard"


def saved_model_command(request: arguments.SavedModelRequest) -> int:
    """``eval``, ``video`` or ``export`` (``request.action``) of the saved model the flags name."""
    from border_py.run import outputs
    from border_py.run.saved import evaluate

    experiment = arguments.saved_experiment(request)
    model_dir, checkpoint, out = request.model_dir, request.checkpoint, request.out
    if request.action == "eval":
        evaluate(experiment, model_dir, checkpoint, request.episodes, sample=request.sample)
        return 0
    assert out is not None  # video's and export's parsers require it
    if request.action == "video":
        outputs.record_video(experiment, model_dir, out, checkpoint, request.episodes or 1)
    else:
        outputs.export_policy(experiment, model_dir, out, checkpoint)
    return 0


def _zoo(algo: str | None, env_id: str | None = None, variant: str | None = None) -> int:
    if algo is not None and env_id is not None:  # the settings train would start from, as YAML
        found = zoo.entry(algo, env_id, variant)
        print(f"# {found.source}" + ("" if found.tuned else f": no entry for {env_id}, the defaults apply"))
        print(yaml.safe_dump(found.data, sort_keys=False, default_flow_style=None, width=110), end="")
        return 0
    for name in [algo] if algo else zoo.algorithms():
        print(f"{name}:")
        for env_id, variants in zoo.listing(name).items():
            print(f"  {env_id}" + (f"  (variants: {', '.join(variants)})" if variants else ""))
        if algo:
            print(f"  search space: {', '.join(zoo.search_space(name))}")
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    """Runs the verb ``args`` parsed: its request is built here, where argparse returns, and handed on."""
    if args.verb == "train":
        request = _train_request(args)
        data, source, notes = arguments.train_arguments(request)
        return train_data(data, source, request.run, resume=False, notes=notes)
    if args.verb == "resume":
        resume = arguments.ResumeRequest(
            model_dir=args.model_dir, overrides=tuple(args.set), run=arguments.RunFlags.from_args(args)
        )
        return resume_command(resume)
    if args.verb in ("eval", "video", "export"):
        return saved_model_command(_saved_request(args))
    if args.verb == "upload":
        from border_py.run.recording import upload_unsent
        from border_py.run.rundir import RunDir

        print(f"uploaded {upload_unsent(RunDir(args.model_dir))} entries of {args.model_dir}")
        return 0
    if args.verb == "tune":
        from border_py.run.tune import tune_command

        return tune_command(_tune_request(args))
    return _zoo(args.algo, args.env, args.variant)


def _train_request(args: argparse.Namespace) -> arguments.TrainRequest:
    return arguments.TrainRequest(
        algo=args.algo,
        env=args.env,
        variant=args.variant,
        config=args.config,
        seed=args.seed,
        actors=args.actors,
        address=args.address,
        model_dir=args.model_dir,
        overrides=tuple(args.set),
        run=arguments.RunFlags.from_args(args),
    )


def _saved_request(args: argparse.Namespace) -> arguments.SavedModelRequest:
    return arguments.SavedModelRequest(
        action=args.verb,
        model_dir=args.model_dir,
        config=args.config,
        out=getattr(args, "out", None),  # video and export
        checkpoint=args.checkpoint,
        episodes=getattr(args, "episodes", None),  # eval and video
        device=args.device,
        trust=arguments.trust(args.trust_code),
        sample=getattr(args, "sample", False),  # eval
    )


def _tune_request(args: argparse.Namespace) -> arguments.TuneRequest:
    return arguments.TuneRequest(
        algo=args.algo,
        env=args.env,
        variant=args.variant,
        trials=args.trials,
        storage=args.storage,
        study=args.study,
        out=args.out,
        sampler_seed=args.sampler_seed,
        startup_trials=args.startup_trials,
        heartbeat=args.heartbeat,
        overrides=tuple(args.set),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["plot"]:  # its own parser: border-py plot --help lists its flags
        from border_py.plot import main as plot_main

        return plot_main(argv[1:], prog="border-py plot", normalise=codec.with_defaults)
    if argv[:1] == ["datasets"]:
        from border_py.run.zoo_datasets import main as datasets_main

        return guarded(lambda: datasets_main(argv[1:]))
    args = parser().parse_args(argv)
    # The current folder importable for this command only; border_py's own warnings one line each.
    trust_code, env = getattr(args, "trust_code", False), getattr(args, "env", None)
    with arguments.user_code(trust_code, env), one_line_own_warnings():
        return guarded(lambda: _dispatch(args))


def guarded(command: Callable[[], int]) -> int:
    """Runs ``command`` as the CLI runs its verbs: bad input is one line on stderr and exit status 2; an
    interrupt (a checkpoint saved) says how to continue and exits with 128 + the signal number; so does a
    signal that stops it at once (before training's first step, or a second one), in one line."""
    try:
        with sigterm_stops_at_once():
            return command()
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
        print(
            f"stopped at once by {signal.Signals(signum).name}: saves are atomic, so every checkpoint is "
            "whole or absent",
            file=sys.stderr,
        )
        return 128 + signum
    except TrainingInterrupted as exc:
        print(str(exc), file=sys.stderr)
        if exc.checkpoint is not None:
            print(f"continue with: border-py resume --model-dir {exc.checkpoint.parent}", file=sys.stderr)
        return 128 + exc.signum
    except ExperienceSourceError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        if exc.checkpoint is not None:
            print(f"continue with: border-py resume --model-dir {exc.checkpoint.parent}", file=sys.stderr)
        return 2
    except REFUSED as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
