"""From the command line's arguments to an experiment's plain data: a zoo entry or a ``--config`` file,
the ``--env`` forms (a Gymnasium id, Gymnasium's ``module:EnvId-v0``, a user's ``module:function``),
``--seed``, ``--set`` and the run directory; what a file may import (``--trust-code``). `border_py.run.cli`
hands the data to `border_py.run.commands`.

What a command asks for travels as a small frozen request (`TrainRequest`, `ResumeRequest`,
`SavedModelRequest`, `TuneRequest`, with the `RunFlags` of a command that trains), built once where
argparse returns (`border_py.run.cli`, `border_py.run.run_cli`): no parsed namespace is handed on.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import inspect
import os
import re
import sys
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import attrs

from border_py.config import ConfigError, parse_yaml, to_dict
from border_py.run import codec, zoo
from border_py.run.experiment import AnyExperiment
from border_py.run.recording import Tracking


@attrs.frozen(kw_only=True)
class RunFlags:
    """How a command that trains runs its experiment: the flags of `border_py.run.cli.add_run_flags`
    (``progress`` is not ``--no-progress``; ``tags`` are ``--tag``'s words, checked by `tracking`),
    ``--overwrite``, and ``trust``: what the experiment's files may import (`trust`)."""

    progress: bool = True
    recorder: Literal["tensorboard", "mlflow"] | None = None
    experiment: str | None = None
    run_name: str | None = None
    tags: tuple[str, ...] = ()
    overwrite: bool = False
    trust: codec.Trust = frozenset()

    @classmethod
    def from_args(cls, args: argparse.Namespace, trusted: Collection[str] = ()) -> RunFlags:
        """The flags of a command's parsed arguments (those of `border_py.run.cli.add_run_flags` and
        ``add_trust_flag``, and ``--overwrite`` where the command has it), read once where argparse
        returns (`border_py.run.cli`, `border_py.run.run_cli`); without ``--trust-code`` the
        experiment's files may import the modules ``trusted`` (a program's own)."""
        return cls(
            progress=not args.no_progress,
            recorder=args.recorder,
            experiment=args.experiment,
            run_name=args.run_name,
            tags=tuple(args.tag),
            overwrite=getattr(args, "overwrite", False),
            trust=trust(args.trust_code, trusted),
        )

    def tracking(self) -> Tracking:
        """The MLflow names and tags the flags give.

        Raises:
            ConfigError: a ``--tag`` without ``=``.
        """
        tags = dict(tag.partition("=")[::2] for tag in self.tags)
        bad = [tag for tag in self.tags if "=" not in tag or not tag.partition("=")[0]]
        if bad:
            raise ConfigError(f"--tag {bad[0]!r}: expected key=value")
        return Tracking(experiment=self.experiment, run_name=self.run_name, tags=tags)


@attrs.frozen(kw_only=True)
class TrainRequest:
    """``border-py train``'s experiment as its flags name it: ``ALGO --env ENV [--variant]`` (the zoo) or
    ``--config FILE``, then ``--seed``, ``--actors``, ``--address``, ``--set`` (``overrides``) and
    ``--model-dir``; ``run``: how it runs."""

    algo: str | None = None
    env: str | None = None
    variant: str | None = None
    config: Path | None = None
    seed: int | None = None
    actors: int | None = None
    address: str | None = None
    model_dir: Path | None = None
    overrides: tuple[str, ...] = ()
    run: RunFlags = RunFlags()


@attrs.frozen(kw_only=True)
class ResumeRequest:
    """``resume``: the run in ``model_dir``, its ``config.yaml`` changed by ``--set`` (``overrides``)."""

    model_dir: Path
    overrides: tuple[str, ...] = ()
    run: RunFlags = RunFlags()


@attrs.frozen(kw_only=True)
class SavedModelRequest:
    """``eval``, ``video`` or ``export`` (``action``) of the saved model in ``model_dir``: its
    ``config.yaml``, or ``--config``'s experiment; ``out`` the video file or the export's folder."""

    action: Literal["eval", "video", "export"]
    model_dir: Path
    config: Path | None = None
    out: Path | None = None
    checkpoint: str = "best"
    episodes: int | None = None
    device: str | None = None
    trust: codec.Trust = frozenset()
    sample: bool = False
    """``eval --sample``: actions drawn as in training, not greedy."""


@attrs.frozen(kw_only=True)
class TuneRequest:
    """``border-py tune``: the flags of `border_py.run.tune.add_tune_flags` and ``--set``
    (``overrides``)."""

    algo: str
    env: str
    variant: str | None
    trials: int
    storage: str
    study: str | None
    out: Path | None
    sampler_seed: int | None
    startup_trials: int
    heartbeat: int
    overrides: tuple[str, ...] = ()


def default_model_dir(algo: str, env_id: str, variant: str | None, seed: int) -> str:
    """``runs/<algo>/<env id>[-<variant>]/seed<N>``; the module of ``module:EnvId-v0`` is left out."""
    name = env_id.rpartition(":")[2].replace("/", "-") + (f"-{variant}" if variant else "")
    return str(Path("runs") / algo / name / f"seed{seed}")


GYM_ID = re.compile(r"^(?:[\w.-]+/)?[\w.-]+-v\d+$")
"""A versioned Gymnasium id (``Corridor-v0``, ``ALE/Pong-v5``): ``--env module:Corridor-v0`` is Gymnasium's
convention (the module registers the id), ``--env module:function`` names a function."""


@contextmanager
def current_folder_importable(wanted: bool = True) -> Iterator[None]:
    """The current folder on ``sys.path`` (searched last, so a file there never hides a library) while the
    block runs, when ``wanted``; ``sys.path`` is as it was after it (the entry is taken off only if the
    block put it there). A library call leaves the process as it found it.

    Example:
        >>> import os, sys
        >>> before = list(sys.path)
        >>> with current_folder_importable():
        ...     os.getcwd() in sys.path
        True
        >>> sys.path == before
        True
    """
    here = os.getcwd()
    added = wanted and here not in sys.path
    if added:
        sys.path.append(here)
    try:
        yield
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


@contextmanager
def user_code(trust_code: bool, env: str | None) -> Iterator[None]:
    """What a command needs to run the user's own modules: the current folder importable while it runs
    when its flags name them (``--trust-code``: ``trust_code``, ``--env module:...``), as ``python -m``
    would find them, for the imports of the experiment's names and of what they import when an env is
    built. With ``--trust-code`` each module imported from the current folder is named once on stderr."""
    with current_folder_importable(trust_code or ":" in (env or "")):
        if not trust_code:
            yield
            return
        watcher = _FolderImports(Path.cwd())
        sys.meta_path.insert(0, watcher)
        try:
            yield
        finally:
            sys.meta_path.remove(watcher)


class _FolderImports(importlib.abc.MetaPathFinder):
    """Finds nothing itself: it asks Python's own path finder where a new top-level module would come from
    and, when that is the current folder, says so once on stderr (a file there runs as code under
    ``--trust-code``, and its user should know which one did)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.said = folder.resolve(), set[str]()

    def find_spec(self, name: str, path: Sequence[str] | None, target: object = None) -> None:
        # A submodule comes from its package, which was named when it was imported.
        place = None if path is not None or name in self.said else self._in_folder(name)
        if place is not None:
            self.said.add(name)
            print(f"note: --trust-code: importing the module {name!r} from {place}", file=sys.stderr)

    def _in_folder(self, name: str) -> str | None:
        """Where the top-level module ``name`` would be imported from, if that is the folder itself
        (``name.py``, ``name/__init__.py``, a namespace package ``name/``)."""
        spec = importlib.machinery.PathFinder.find_spec(name)
        if spec is None:
            return None
        package = list(spec.submodule_search_locations or [])
        place = spec.origin or (package[0] if package else None)
        if place is None:
            return None
        top = Path(place).parent if package and spec.origin else Path(place)
        return place if top.resolve().parent == self.folder else None


def import_user_module(module: str, what: str) -> Any:
    """Imports the user's ``module``, which the command line names (so the user asked for it), from the
    installed packages or the current folder (searched last, so a file there never hides a library;
    `sys.path` is as it was after).

    Raises:
        ConfigError: it cannot be imported (``what`` and the reason named).
    """
    import importlib

    with current_folder_importable():
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            raise ConfigError(
                f"{what}: cannot import {module!r} (searched the installed packages and {os.getcwd()}): {exc}"
            ) from exc


def _user_env(path: str) -> dict[str, Any]:
    """The env section of an experiment whose env is ``package.module:function`` (a user's own)."""
    module, _, name = path.partition(":")
    make = getattr(import_user_module(module, f"--env {path!r}"), name, None)
    if not inspect.isfunction(make):  # os:system, builtins:exec: called with nothing, they raised TypeError
        raise ConfigError(
            f"--env {path!r}: {module} has no function {name!r} returning an env config (nor is "
            f"{name!r} a Gymnasium id, EnvId-v0)"
        )
    try:
        inspect.signature(make).bind()
    except TypeError as exc:
        raise ConfigError(
            f"--env {path!r}: {name} must take no arguments (it returns an env config)"
        ) from exc
    config = make()
    if not attrs.has(type(config)) or not callable(getattr(config, "build", None)):
        raise ConfigError(
            f"--env {path!r}: {name}() returned a {type(config).__name__}, not an env config (an attrs "
            "config with build(seed), as GymEnvConfig)"
        )
    return {"type": codec.tag_of("env", config), **to_dict(config)}


def _experiment_data(request: TrainRequest) -> tuple[dict[str, Any], str, tuple[str, ...]]:
    """The experiment's plain data, where it came from (``--config``, else the zoo) and the notes to say
    once the run's checks pass."""
    if request.config is not None:
        if request.algo or request.env or request.variant:
            raise ConfigError("give ALGO --env ENV (the zoo) or --config FILE, not both")
        return config_file(request.config, request.run.trust), str(request.config), ()
    if not request.algo or not request.env:
        swallowed = [word for word in request.overrides if "=" not in word]
        hint = (
            f"; --set took {swallowed[0]!r} (it takes every word up to the next flag: give ALGO before it)"
            if swallowed
            else ""
        )
        raise ConfigError(f"train needs ALGO --env ENV (border-py zoo lists them) or --config FILE{hint}")
    module, user_env, name = request.env.partition(":")
    gym_id = bool(user_env) and GYM_ID.match(name) is not None
    if gym_id:  # Gymnasium's module:EnvId-v0: importing the module registers the id
        import_user_module(module, f"--env {request.env!r}")
    entry = zoo.entry(request.algo, "custom" if user_env and not gym_id else request.env, request.variant)
    data, notes = entry.data, tuple[str, ...]()
    if user_env and not gym_id:
        data = {**data, "env": _user_env(request.env)}
    elif not entry.tuned:
        notes = (
            f"note: the zoo has no {request.algo} entry for {request.env}: using {request.algo}'s defaults",
        )
    return data, entry.source, notes


def config_file(path: Path, trust_code: codec.Trust) -> dict[str, Any]:
    """A ``--config`` file's data; a module it names is imported only with ``--trust-code``."""
    data = parse_yaml(path.read_text(), str(path))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of fields")
    if trust_code is not True:
        codec.refuse_code(data, str(path), trust_code or ())
    return data


def trust(trust_code: bool, trusted: Collection[str] = ()) -> codec.Trust:
    """What a file may import: everything after ``--trust-code`` (`user_code` makes the current folder
    importable while the command runs); else the modules ``trusted`` (a program's own,
    `border_py.run.run_cli`), if any."""
    if not trust_code:
        return frozenset(trusted)
    return True


def train_arguments(request: TrainRequest) -> tuple[dict[str, Any], str, tuple[str, ...]]:
    """``train``'s experiment as plain data (zoo entry or ``--config``, then ``--seed``, ``--actors``,
    ``--address``, ``--set`` and ``--model-dir``, else the default directory), where it came from and
    the notes to say once the run's checks pass."""
    data, source, notes = _experiment_data(request)
    flags = [f"trainer.seed={request.seed}"] if request.seed is not None else []
    if request.actors is not None or request.address is not None:
        data = zoo.merge(data, {"distributed": data.get("distributed") or {}})
        flags += [f"distributed.n_actors={request.actors}"] if request.actors is not None else []
        flags += [f"distributed.address={request.address}"] if request.address is not None else []
    data = codec.apply_overrides(data, [*flags, *request.overrides])
    source = f"{source} with --set" if request.overrides else source
    trainer = data.setdefault("trainer", {})
    if request.model_dir is not None:
        trainer["model_dir"] = str(request.model_dir)
    elif trainer.get("model_dir") is None:
        built = codec.experiment_from_dict(data, source)  # the default directory names its algo and seed
        env_id = request.env if request.env and ":" not in request.env else built.env_id
        trainer["model_dir"] = default_model_dir(built.algo, env_id, request.variant, built.trainer.seed)
    return data, source, notes


def resume_data(request: ResumeRequest) -> tuple[dict[str, Any], str]:
    """``resume``'s experiment as plain data: the run's ``config.yaml`` changed by ``--set``, and where it
    came from."""
    from border_py.run.rundir import RunDir

    run_dir = RunDir(request.model_dir)
    data = codec.experiment_to_dict(run_dir.read_config(request.run.trust))
    if isinstance(data.get("distributed"), dict):
        # A model directory is data: the Ray cluster a resume joins is the command line's
        # (--set distributed.address=...), never one its config.yaml names.
        data["distributed"]["address"] = None
    data = codec.apply_overrides(data, request.overrides)
    data["trainer"]["model_dir"] = str(request.model_dir)
    source = str(run_dir.config_file) + (" with --set" if request.overrides else "")
    return data, source


def saved_experiment(request: SavedModelRequest) -> AnyExperiment:
    """The experiment of the saved run ``--model-dir`` (its ``config.yaml``), or ``--config``'s, its agent
    on ``--device`` when given."""
    from border_py.run.rundir import RunDir

    if request.config is None:
        experiment = RunDir(request.model_dir).read_config(request.trust)
    else:
        data = config_file(request.config, request.trust)
        data = zoo.merge(data, {"trainer": {"model_dir": str(request.model_dir)}})  # --model-dir completes it
        experiment = codec.experiment_from_dict(data, str(request.config))
    if request.device is None:
        return experiment
    override = [f"agent.device={request.device}"]
    data = codec.apply_overrides(codec.experiment_to_dict(experiment), override, "--device")
    return codec.experiment_from_dict(data, "--device", trust_code=request.trust)
