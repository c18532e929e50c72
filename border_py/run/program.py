"""An experiment built in Python, run with the ``border-py`` command's flags: the entry point of the example
programs (``examples/dqn_cartpole.py``) and of your own.

A program states its experiment once, in typed Python (mypy checks the pairing), and hands it to
`run_cli`:

    import sys
    from border_py.run import Experiment, run_cli

    def experiment() -> Experiment[...]:
        return Experiment(env=..., step_processor=..., replay_buffer=..., agent=..., trainer=...)

    if __name__ == "__main__":
        sys.exit(run_cli(experiment()))

Its command line is then the CLI's, for that one experiment:

    python my_program.py --train                     # into runs/<algo>/<env>/seed0
    python my_program.py --train --seed 1 --set agent.lr=3e-4 trainer.max_opts=5000
    python my_program.py --resume                    # after Ctrl-C, or with --set to train on
    python my_program.py --eval --episodes 100       # the best model, greedy
    python my_program.py --video cartpole.mp4
    python my_program.py --export exported/

``--train`` runs the program's experiment; every other action reads the run directory's ``config.yaml``
(what was trained, ``--set`` included), exactly as ``border-py resume|eval|video|export --model-dir``.
An experiment with a fine-tuning stage (AWAC: offline, then online) passes it as ``finetune``; ``--finetune``
then acts on that stage, in ``MODEL_DIR/finetune``, starting from ``MODEL_DIR/best``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import attrs

from border_py.cli_parser import Parser
from border_py.config import ConfigError
from border_py.run import arguments, cli, codec
from border_py.run.experiment import AnyExperiment, Experiment

FINETUNE_DIR = "finetune"
"""The fine-tuning stage's run directory, inside the first stage's."""


def parser(prog: str | None, description: str | None, finetune: bool) -> argparse.ArgumentParser:
    """The flags `run_cli` gives a program (``finetune``: with ``--finetune``)."""
    parser = Parser(prog=prog, description=description)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--train", action="store_true", help="train this program's experiment")
    action.add_argument("--resume", action="store_true", help="continue the run from its newest checkpoint")
    action.add_argument("--eval", action="store_true", help="evaluate the saved model (greedy)")
    action.add_argument("--video", type=Path, metavar="OUT", help="record episodes to OUT (.mp4 or .gif)")
    action.add_argument(
        "--export", type=Path, metavar="OUT", help="export the greedy policy to the folder OUT"
    )
    parser.add_argument(
        "--model-dir", type=Path, help="the run directory (default: runs/<algo>/<env>/seed<N>)"
    )
    parser.add_argument("--seed", type=int, help="the run's seed (trainer.seed; --train)")
    parser.add_argument("--overwrite", action="store_true", help="remove another run in --model-dir first")
    if finetune:
        parser.add_argument(
            "--finetune",
            action="store_true",
            help=f"act on the fine-tuning stage, in MODEL_DIR/{FINETUNE_DIR}, trained from MODEL_DIR/best",
        )
    cli.add_trust_flag(parser)
    cli.add_saved_flags(parser, episodes=True)
    cli.add_run_flags(parser)
    return parser


def run_cli(
    experiment: AnyExperiment,
    argv: Sequence[str] | None = None,
    *,
    finetune: Experiment[Any, Any, Any, Any] | None = None,
    prog: str | None = None,
    description: str | None = None,
) -> int:
    """Runs ``experiment`` as the command line ``argv`` (``sys.argv[1:]`` when ``None``) asks; returns the
    exit status. Bad input is one line on stderr and exit status 2, as with ``border-py``.

    Args:
        experiment: the program's experiment; its ``trainer.model_dir`` is the default run directory
            when set, else ``runs/<algo>/<env>/seed<N>``.
        argv: the flags (the module doc lists them).
        finetune: a second stage trained from the first's ``best/`` (``--finetune``); its ``init_from``
            is set to it when ``None``.
        prog: the program's name in the help (default: the script's).
        description: the help's text (the program's docstring, say).
    """
    args = parser(prog, description, finetune is not None).parse_args(argv)
    with arguments.user_code(args.trust_code, None):  # the current folder importable for this call only
        return cli.guarded(lambda: _act(args, experiment, finetune))


def _act(
    args: argparse.Namespace, experiment: AnyExperiment, finetune: Experiment[Any, Any, Any, Any] | None
) -> int:
    """Runs the action ``args`` parsed: its request is built here, where argparse returns, and handed on
    as `border_py.run.cli` hands on its verbs'."""
    model_dir = args.model_dir or _default_dir(experiment, args.seed)
    stage = experiment
    if getattr(args, "finetune", False):
        assert finetune is not None
        stage, base, model_dir = finetune, model_dir, model_dir / FINETUNE_DIR
        if finetune.init_from is None:
            stage = attrs.evolve(finetune, init_from=str(base / "best"))
    # The program's own modules (its agent or env classes) are already imported: its run may name them.
    trusted = {
        m
        for e in (experiment, finetune)
        if e
        for m in codec.imported_modules(codec.experiment_to_dict(e)).values()
    }
    if args.device is not None and (args.train or args.resume):
        raise ConfigError("--device goes with --eval, --video and --export (a run's: --set agent.device=...)")
    run = arguments.RunFlags.from_args(args, trusted)
    if args.train:
        data = _train_data(stage, args.seed, args.set, model_dir)
        return cli.train_data(data, "the program's experiment", run, resume=False)
    if args.seed is not None or args.overwrite:
        raise ConfigError("--seed and --overwrite go with --train (the run directory's config says the rest)")
    if args.resume:
        return cli.resume_command(
            arguments.ResumeRequest(model_dir=model_dir, overrides=tuple(args.set), run=run)
        )
    action: Literal["eval", "video", "export"] = (
        "eval" if args.eval else "video" if args.video is not None else "export"
    )
    return cli.saved_model_command(
        arguments.SavedModelRequest(
            action=action,
            model_dir=model_dir,
            out=args.video if action == "video" else args.export,
            checkpoint=args.checkpoint,
            episodes=args.episodes,
            device=args.device,
            trust=run.trust,
        )
    )


def _default_dir(experiment: AnyExperiment, seed: int | None) -> Path:
    if experiment.trainer.model_dir is not None:
        return Path(experiment.trainer.model_dir)
    return Path(
        arguments.default_model_dir(
            experiment.algo, experiment.env_id, None, experiment.trainer.seed if seed is None else seed
        )
    )


def _train_data(
    experiment: AnyExperiment, seed: int | None, overrides: Sequence[str], model_dir: Path
) -> dict[str, Any]:
    data = codec.experiment_to_dict(experiment)
    flags = [f"trainer.seed={seed}"] if seed is not None else []
    data = codec.apply_overrides(data, [*flags, *overrides])
    data["trainer"]["model_dir"] = str(model_dir)
    return data
