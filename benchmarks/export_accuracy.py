"""How far exported policies are from torch: ``python -m benchmarks.export_accuracy [MODEL_DIR ...]``.

For each trained run directory given (its ``config.yaml`` and ``best/``) and each of the zoo's networks
with fresh weights, the numpy and ONNX policies and the agent's greedy policy in torch act on 100,000
observations drawn from N(0, 1) and from N(0, 3^2): prints the largest absolute difference of the outputs
(values, or a continuous action) and the largest relative to the larger of 1 and the observation's largest
absolute output (what ``border_py.export.numpy_policy.TORCH_RTOL`` bounds).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from benchmarks.export import _agents
from border_py.export import NumpyPolicy, OnnxPolicy, export_numpy, export_onnx, greedy_module
from border_py.run.experiment import build_eval_env
from border_py.run.rundir import RunDir
from border_py.run.saved import load_agent


def trained(model_dir: Path) -> Any:
    """The run's agent with its ``best/`` weights."""
    experiment = RunDir(model_dir).read_config(False)
    return load_agent(experiment, model_dir / "best", build_eval_env(experiment))


def differences(agent: Any, policy: Any, scale: float, n: int) -> tuple[float, float, float]:
    """(largest |output|, largest absolute difference, largest relative difference)."""
    obs = np.random.default_rng(1).normal(scale=scale, size=(n, agent.obs_dim)).astype(np.float32)
    with torch.inference_mode():
        out = greedy_module(agent)(torch.as_tensor(obs))
    if isinstance(out, tuple):
        expected, got = out[0].numpy(), policy.values(obs)
    else:
        expected, got = out.numpy(), policy.act(obs)
    diff = np.abs(got.astype(np.float64) - expected)
    size = np.maximum(1.0, np.abs(expected).max(axis=1, keepdims=True))
    return float(np.abs(expected).max()), float(diff.max()), float((diff / size).max())


def main(argv: list[str] | None = None) -> int:
    """Prints one line per network, runtime and observation scale."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model_dirs", type=Path, nargs="*", help="trained run directories")
    parser.add_argument("--observations", type=int, default=100_000)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    agents: dict[str, Any] = {f"trained {d}": trained(d) for d in args.model_dirs}
    agents.update({f"fresh {name}": agent for name, agent in _agents().items()})
    for name, agent in agents.items():
        agent.eval()
        with tempfile.TemporaryDirectory() as d:
            runtimes: dict[str, Any] = {"numpy": NumpyPolicy.load(export_numpy(agent, d))}
            runtimes["onnx"] = OnnxPolicy.load(export_onnx(agent, d))
            for runtime, policy in runtimes.items():
                for scale in (1.0, 3.0):
                    peak, worst, relative = differences(agent, policy, scale, args.observations)
                    print(f"{name}, {runtime}, obs scale {scale:g}: largest |output| {peak:.3g}, "
                          f"|difference| {worst:.2e}, relative {relative:.2e}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
