"""The fuzz targets: each parser or loader that a user's words or a file in a model directory reaches, with
the inputs to draw for it (mutations of a valid input, and arbitrary ones) and the check that feeds one
input to the code the CLI runs on it."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import numpy as np
import yaml
from hypothesis import strategies as st

from border_py import GymEnvConfig, SimpleReplayBufferConfig, SimpleStepProcessorConfig
from border_py.checkpoint import META_FILE, TRAINER_STATE_FILE, checkpoint_meta
from border_py.model_dir import latest_checkpoint
from border_py.run import codec, tune, zoo
from border_py.run.recording import _checked_entry, unsent_note
from border_py.run.rundir import MLFLOW_RUN_FILE, MLFLOW_UNSENT_FILE, RunDir
from border_py.run.saved import saved_model
from border_py.seeding import global_rng_states
from border_py.trainer.bookkeeper import Bookkeeper
from border_py.trainer.config import TrainerConfig
from border_py.trainer.online import OnlineRegime
from border_py.trainer.state import check_same_setup, encode, read_trainer_state
from tests.fuzz.harness import NASTY, TEXT_TOKENS, json_values, mutated_text, mutated_tree


@attrs.frozen
class Target:
    """A loader to fuzz: the inputs to draw and the check that loads one in an empty folder."""

    name: str
    inputs: Callable[[Path], st.SearchStrategy[Any]]
    """The inputs, given a folder of fixed assets the target may write first (an exported policy)."""
    check: Callable[[Any, Path, Path], object]
    """Loads one input in an empty folder (the second argument), the assets' folder third."""


# -- --set values ---------------------------------------------------------------------------------------


@functools.cache
def _experiment() -> dict[str, Any]:
    return codec.experiment_to_dict(zoo.experiment("dqn", "CartPole-v1", "runs/x"))


def _keys(data: dict[str, Any], prefix: str = "") -> list[str]:
    found = []
    for key, value in data.items():
        found.append(f"{prefix}{key}")
        if isinstance(value, dict):
            found += _keys(value, f"{prefix}{key}.")
    return found


def _set_inputs(assets: Path) -> st.SearchStrategy[str]:
    key = st.sampled_from(_keys(_experiment())) | st.text(max_size=20)
    value = (
        st.sampled_from(TEXT_TOKENS) | st.text(max_size=30) | st.sampled_from([json.dumps(v) for v in NASTY])
    )
    return st.builds(lambda k, v: f"{k}={v}", key, value) | st.text(max_size=40)


def _check_set(override: str, folder: Path, assets: Path) -> None:
    """``border-py train ... --set override``: the override applied to the experiment's data, which is then
    built as the CLI builds it (a module named is refused, not imported)."""
    data = codec.apply_overrides(_experiment(), [override])
    codec.experiment_from_dict(data, "--set", trust_code=False)


# -- YAML experiments -----------------------------------------------------------------------------------


def _yaml_inputs(assets: Path) -> st.SearchStrategy[str]:
    text = yaml.safe_dump(_experiment(), sort_keys=False)
    trees = mutated_tree(_experiment()).map(lambda tree: yaml.safe_dump(tree, sort_keys=False))
    return mutated_text(text) | trees | st.text(max_size=200)


def _check_yaml(text: str, folder: Path, assets: Path) -> None:
    """``border-py train --config file`` and a run directory's ``config.yaml``."""
    path = folder / "experiment.yaml"
    path.write_text(text, errors="surrogatepass")
    codec.load_experiment(path)


# -- trainer_state.json and meta.yaml -------------------------------------------------------------------


@functools.cache
def _checkpoint() -> tuple[dict[str, Any], dict[str, Any]]:
    """A checkpoint's trainer state (as JSON data) and meta: CartPole, 40 opt steps, mid-episode after a
    reset from the env's RNG (so its episode start holds an RNG state)."""
    env = GymEnvConfig(name="CartPole-v1").build(seed=0)
    obs, actions, steps = env.reset(), list[Any](), 0
    while len(actions) < 5 or steps < 30:
        act = np.array(steps % 2)
        step, _ = env.step(act)
        steps += 1
        actions = [] if step.is_done else [*actions, act]
        obs = step.obs if step.init_obs is None else step.init_obs
    sampler = {"episode_start": env.episode_start_state(), "actions": actions, "obs": obs}
    books = {"env_steps": steps, "opt_steps": 40, "warmup_end": 10, "best_score": 9.0,
             "evaluations": [[20, 15, 9.0], [40, steps, 8.0]]}  # fmt: skip
    source = {"sampler": sampler, "buffer_saved": False}
    state = {"format": 2, "regime": "online", "books": books, "source": source, "rng": global_rng_states()}
    meta = {"opt_steps": 40, "env_steps": steps, "score": 8.0, "config": {"env": {"name": "CartPole-v1"}},
            "files": [TRAINER_STATE_FILE]}  # fmt: skip
    return encode(state), meta


def _state_inputs(assets: Path) -> st.SearchStrategy[str]:
    state = _checkpoint()[0]
    trees = mutated_tree(state).map(json.dumps)
    return trees | mutated_text(json.dumps(state)) | st.text(max_size=200)


def _online_regime() -> OnlineRegime[Any, Any, Any, Any]:
    env = GymEnvConfig(name="CartPole-v1").build(seed=1)
    config = TrainerConfig(max_opts=100, warmup_period=10)
    buffer = SimpleReplayBufferConfig(capacity=100).build(seed=0)
    policy: Any = None  # restoring never acts
    return OnlineRegime(config, {}, env, SimpleStepProcessorConfig(), buffer, policy)


def _check_state(text: str, folder: Path, assets: Path) -> None:
    """``border-py resume``: the state read and checked, the counters loaded, the unfinished episode
    replayed in the env (`OnlineRegime.restore`); and ``RunDir.last_result`` (``border-py tune``)."""
    point = folder / "run" / "40"
    point.mkdir(parents=True)
    (point / TRAINER_STATE_FILE).write_text(text, errors="surrogatepass")
    meta = _checkpoint()[1]
    (point / META_FILE).write_text(yaml.safe_dump(meta))
    RunDir(folder / "run").last_result()
    state = read_trainer_state(point, "online", meta)
    books: Any = SimpleNamespace()  # what Bookkeeper.load_state_dict sets, without a run to keep books of
    Bookkeeper.load_state_dict(books, state["books"])
    _online_regime().restore(point, state["source"], books)


def _meta_inputs(assets: Path) -> st.SearchStrategy[str]:
    meta = _checkpoint()[1]
    trees = mutated_tree(meta).map(lambda tree: yaml.safe_dump(tree))
    return trees | mutated_text(yaml.safe_dump(meta)) | st.text(max_size=200)


def _check_meta(text: str, folder: Path, assets: Path) -> None:
    """What reads a checkpoint's ``meta.yaml``: finding the newest checkpoint, ``resume``'s checks against
    the trainer state and the setup, ``eval``'s check that a saved model is complete."""
    point = folder / "run" / "40"
    point.mkdir(parents=True)
    (point / TRAINER_STATE_FILE).write_text(json.dumps(_checkpoint()[0]))
    (point / META_FILE).write_text(text, errors="surrogatepass")
    latest_checkpoint(folder / "run")
    saved_model(point, "--checkpoint")
    meta = checkpoint_meta(point)
    check_same_setup(point, meta.get("config"), {"env": {"name": "CartPole-v1"}}, ("env",))
    read_trainer_state(point, "online", meta)
    RunDir(folder / "run").last_result()


# -- policy.json ----------------------------------------------------------------------------------------


def _policy_inputs(assets: Path) -> st.SearchStrategy[str]:
    """Mutations of a tiny DQN's exported ``policy.json`` (of a dict observation with an action mask:
    ``obs_parts`` and ``action.mask`` too), exported into ``assets`` first."""
    from border_py.agents import DqnConfig
    from border_py.base import Spaces
    from border_py.base.obs_parts import ObsParts
    from border_py.export import export_numpy

    if not (assets / "weights.npz").is_file():
        parts = ObsParts.of({"action_mask": (2,), "goal": (2,)})
        agent = DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(4,), n_actions=2, obs_parts=parts), 0)
        export_numpy(agent, assets, obs_parts=parts)
    spec = json.loads((assets / "policy.json").read_text())
    return mutated_tree(spec).map(json.dumps) | mutated_text(json.dumps(spec)) | st.text(max_size=200)


def _check_policy(text: str, folder: Path, assets: Path) -> None:
    """``NumpyPolicy.load`` (the numpy-only front door of an exported policy), then one greedy action."""
    from border_py.export import NumpyPolicy

    (folder / "policy.json").write_text(text, errors="surrogatepass")
    (folder / "weights.npz").write_bytes((assets / "weights.npz").read_bytes())
    policy = NumpyPolicy.load(folder)
    policy.act(np.ones(policy.obs_shape, np.float32))  # ones: every action legal under any mask


# -- MLflow spill lines ---------------------------------------------------------------------------------

_RUN_ID = "0123456789abcdef"
_ENTRIES: list[dict[str, Any]] = [
    {"run_id": _RUN_ID, "params": {"agent.lr": "0.001"}},
    {"run_id": _RUN_ID, "metrics": [["train/loss", 1.5, 1700000000000, 10]], "tags": {"a": "b"}},
    {"run_id": _RUN_ID, "files": {"config.yaml": None}},
    {"run_id": _RUN_ID, "artifacts": {"best": "best"}},
    {"run_id": _RUN_ID, "status": "FINISHED"},
]


def _lines(entries: Any) -> list[str]:
    return [json.dumps(e) for e in entries] if isinstance(entries, list) else [json.dumps(entries)]


def _spill_inputs(assets: Path) -> st.SearchStrategy[tuple[bool, list[str]]]:
    """Whether the run directory knows its MLflow run, and the spill file's lines."""
    text = "\n".join(json.dumps(e) for e in _ENTRIES)
    lines = mutated_tree(_ENTRIES).map(_lines) | mutated_text(text).map(str.splitlines)
    return st.tuples(st.booleans(), lines)


def _check_spill(drawn: tuple[bool, list[str]], folder: Path, assets: Path) -> None:
    """``border-py upload``'s checks of every line before anything is sent, and the note a finished run
    prints about what waits."""
    has_id, lines = drawn
    run = RunDir(folder / "run")
    (folder / "run" / "best").mkdir(parents=True)
    (folder / "run" / "best" / "qnet.pt").write_bytes(b"")
    (folder / "run" / "config.yaml").write_text("env: {}\n")
    if has_id:
        (folder / "run" / MLFLOW_RUN_FILE).write_text(_RUN_ID)
    spill = folder / "run" / MLFLOW_UNSENT_FILE
    spill.write_text("\n".join(lines), errors="surrogatepass")
    unsent_note(run)
    for n, line in enumerate(spill.read_text().splitlines(), 1):
        if line.strip():
            _checked_entry(run, spill, n, line)


# -- tune study rows ------------------------------------------------------------------------------------


def _tune_inputs(assets: Path) -> st.SearchStrategy[dict[str, Any]]:
    space = zoo.search_space("dqn")
    keys = st.sampled_from(sorted(space)) | st.text(max_size=20)
    values = json_values() | st.sampled_from(TEXT_TOKENS) | st.text(max_size=20).map(lambda t: "[" + t)
    return st.dictionaries(keys, values, max_size=4)


def _check_tune(params: dict[str, Any], folder: Path, assets: Path) -> None:
    """``border-py tune``'s reading of a study's best trial (`tune.write_best`): every stored parameter
    checked against the search space, then set like ``--set`` and built."""
    space = zoo.search_space("dqn")
    unknown = sorted(set(params) - set(space))
    if unknown:
        return  # refused by write_best before any parameter is read
    checked = {
        key: tune.checked_param(key, space[key], tune.decode(v, key), "best") for key, v in params.items()
    }
    data = tune.with_params(_experiment(), checked, "best trial 0")
    codec.experiment_from_dict(data, "best.yaml", trust_code=False)


TARGETS = [
    Target("set-values", _set_inputs, _check_set),
    Target("yaml-experiment", _yaml_inputs, _check_yaml),
    Target("trainer-state", _state_inputs, _check_state),
    Target("meta-yaml", _meta_inputs, _check_meta),
    Target("policy-json", _policy_inputs, _check_policy),
    Target("spill-lines", _spill_inputs, _check_spill),
    Target("tune-rows", _tune_inputs, _check_tune),
]
