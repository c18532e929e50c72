"""Helpers of the application layer's tests: tiny budgets for zoo entries, tiny local datasets."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from border_py import GymEnvConfig
from border_py.datasets import collect
from border_py.run.zoo import merge


class RandomPolicy:
    """Uniform random actions of ``space`` (the behaviour of the tests' datasets)."""

    def __init__(self, space: gym.Space[Any]) -> None:
        self.space = space
        space.seed(0)

    def sample(self, obs: Any) -> Any:
        return np.asarray(self.space.sample())


def make_dataset(dataset_id: str, env: str, data: Path, steps: int = 300) -> None:
    """A Minari dataset of ``steps`` transitions of random play in ``env``, in ``data``."""
    collect(
        RandomPolicy(gym.make(env).action_space),
        GymEnvConfig(name=env),
        steps,
        dataset_id,
        data_path=str(data),
    )


def make_entry_dataset(data: dict[str, Any], datasets: Path) -> None:
    """The dataset a zoo entry's experiment data reads (offline, or prefilling its buffer), built by
    `make_dataset` into ``datasets``; nothing for an entry that reads none."""
    dataset = data.get("dataset") or (data.get("replay_buffer") or {}).get("dataset")
    if dataset:
        make_dataset(dataset["dataset_id"], data["env"]["name"], datasets)


def tiny(
    data: dict[str, Any], model_dir: Path, data_path: Path | None = None, opts: int = 4
) -> dict[str, Any]:
    """A zoo entry's experiment data with a budget of seconds (`tiny_changes`), saving into
    ``model_dir``."""
    changes = tiny_changes(data, data_path, opts)
    return merge(data, merge(changes, {"trainer": {"model_dir": str(model_dir)}}))


def tiny_changes(data: dict[str, Any], data_path: Path | None = None, opts: int = 4) -> dict[str, Any]:
    """What gives an experiment's data (a zoo entry's) a budget of seconds: ``opts`` opt steps, an
    evaluation (one episode) and a save at the end, small buffers and batches; its datasets read from
    ``data_path``."""
    trainer: dict[str, Any] = {
        "max_opts": opts, "max_env_steps": None, "eval_interval": opts, "save_interval": opts,
        "record_interval": 1, "keep_checkpoints": None,
        # In opt steps here: an entry's intervals in env steps (RL Zoo's translated entries) go.
        "eval_interval_env_steps": None, "save_interval_env_steps": None,
    }  # fmt: skip
    over: dict[str, Any] = {"evaluator": {"n_episodes": 1}, "trainer": trainer, "agent": {"batch_size": 16}}
    buffer = data.get("replay_buffer") or {}
    kind = buffer.get("type", "simple")
    if kind == "rollout":
        n_envs = buffer.get("num_envs", 1)
        over["replay_buffer"] = {"n_steps": 8}
        agent = data.get("agent") or {}
        # PPO's minibatches and epochs; A2C has neither (one step on the whole rollout).
        over["agent"] = {} if agent.get("type") == "a2c" else {"batch_size": 8, "n_epochs": 1}
        trainer["opt_interval"] = 8 * n_envs
    elif "replay_buffer" in data:
        over["replay_buffer"] = {"capacity": 2000}
        trainer["warmup_period"] = 64
    device = os.environ.get("BORDER_PY_DEVICE")  # make test-cuda: every zoo entry on cuda
    if device:
        over["agent"]["device"] = device
    if data.get("env", {}).get("type") == "atari_vec" and kind == "frames":
        # An untrained DQN's greedy game of Pong takes minutes; an untrained PPO's (argmax of near-uniform
        # logits) a few seconds, so the PPO example evaluates.
        trainer["eval_interval"] = None
        over["replay_buffer"]["streams"] = data["env"].get("num_envs", 4)
    if data_path is not None:
        if data.get("dataset"):
            over["dataset"] = {"data_path": str(data_path)}
        if kind == "prefilled":
            over["replay_buffer"]["dataset"] = {"data_path": str(data_path)}
    return over


def as_overrides(changes: dict[str, Any], prefix: str = "") -> list[str]:
    """``changes`` (nested sections) as ``--set`` arguments: ``{"trainer": {"max_opts": 4}}`` ->
    ``["trainer.max_opts=4"]``."""
    flat: list[str] = []
    for key, value in changes.items():
        if isinstance(value, dict):
            flat += as_overrides(value, f"{prefix}{key}.")
        else:
            flat.append(f"{prefix}{key}={json.dumps(value)}")
    return flat
