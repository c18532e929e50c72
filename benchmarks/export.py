"""Batch-1 latency of an exported policy: the numpy policy and onnxruntime against the same greedy policy
in torch eager (``torch.as_tensor`` in, ``.numpy()`` out), for the zoo's networks."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
import threadpoolctl
import torch

from benchmarks.common import Row, Workload, compare
from border_py.agents import Dqn, Iqn, Ppo, Sac
from border_py.agents.offline_base import OfflineAgent
from border_py.base import Spaces
from border_py.export import NumpyPolicy, export_numpy, greedy_module
from border_py.export.exporters import Exportable
from border_py.run import zoo


def _zoo_agent(algo: str, env_id: str, spaces: Spaces) -> Exportable:
    """The zoo entry's agent, with fresh weights."""
    agent = zoo.experiment(algo, env_id, "unused").agent.build(spaces, 0)
    if not isinstance(agent, Dqn | Iqn | Sac | Ppo | OfflineAgent):
        raise TypeError(f"{algo} builds {type(agent).__name__}, which does not export")
    return agent


def _agents() -> dict[str, Exportable]:
    cartpole = Spaces(obs_shape=(4,), n_actions=2)
    pendulum = Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0])
    hopper = Spaces(obs_shape=(11,), action_low=[-1.0] * 3, action_high=[1.0] * 3)
    return {
        "DQN CartPole 256x256": _zoo_agent("dqn", "CartPole-v1", cartpole),
        "IQN CartPole 256/256/256, 32 taus": _zoo_agent("iqn", "CartPole-v1", cartpole),
        "SAC Pendulum actor 256x256": _zoo_agent("sac", "Pendulum-v1", pendulum),
        "PPO Hopper 256x256 ReLU, obs normalised": _zoo_agent("ppo", "Hopper-v5", hopper),
        "BC Pendulum 256x256": _zoo_agent("bc", "pendulum-medium-v0", pendulum),
        "IQL Pendulum actor 256x256": _zoo_agent("iql", "pendulum-medium-v0", pendulum),
    }


def _observations(dim: int) -> list[np.ndarray]:
    return list(np.random.default_rng(0).normal(size=(256, dim)).astype(np.float32))


def _loop(act: Callable[[np.ndarray], Any], observations: list[np.ndarray]) -> Workload:
    def run(n: int) -> None:
        k = len(observations)
        for i in range(n):
            act(observations[i % k])

    return run


def _torch_eager(agent: Exportable) -> Callable[[np.ndarray], Any]:
    module = greedy_module(agent)

    def act(obs: np.ndarray) -> Any:
        with torch.inference_mode():
            out = module(torch.as_tensor(obs).unsqueeze(0))
        return (out[1] if isinstance(out, tuple) else out)[0].numpy()

    return act


def run(threads: int, quick: bool) -> list[Row]:
    """numpy vs torch eager and onnxruntime vs torch eager, in policy calls per second (one observation
    each), for each example network."""
    n = 500 if quick else 5_000
    # numpy's BLAS gets the thread count torch has: OpenBLAS's own default (every core) is slower at batch
    # 1, and a policy served beside an env should not take every core.
    with threadpoolctl.threadpool_limits(limits=threads):
        return _rows(threads, n)


def _rows(threads: int, n: int) -> list[Row]:
    rows = []
    try:
        from border_py.export import OnnxPolicy, export_onnx
    except ImportError:  # pragma: no cover - the export extra is part of bench's install
        export_onnx = None  # type: ignore[assignment]
    for name, agent in _agents().items():
        observations = _observations(agent.obs_dim)
        torch_act = _torch_eager(agent)
        with tempfile.TemporaryDirectory() as d:
            numpy_policy = NumpyPolicy.load(export_numpy(agent, d))
            ours, ref = compare(_loop(numpy_policy.act, observations), _loop(torch_act, observations), n)
            rows.append(
                Row(
                    name=f"batch-1 act, numpy policy ({name})",
                    threads=threads,
                    ours=ours.median,
                    reference=ref.median,
                    reference_name="torch eager",
                    unit="calls/s",
                    target=1.0,
                )
            )
            if export_onnx is not None:
                onnx_policy = OnnxPolicy.load(export_onnx(agent, d))
                ours, ref = compare(_loop(onnx_policy.act, observations), _loop(torch_act, observations), n)
                rows.append(
                    Row(
                        name=f"batch-1 act, onnxruntime ({name})",
                        threads=threads,
                        ours=ours.median,
                        reference=ref.median,
                        reference_name="torch eager",
                        unit="calls/s",
                        note="onnxruntime at 1 intra-op thread",
                    )
                )
    return rows
