"""The CUDA path, on a machine with a GPU (``make test-cuda``; deselected everywhere else, as the Atari
target is): agents train on ``cuda`` through the run layer, their saved models load and evaluate on the CPU
a user moves them to, a resumed run on ``cuda`` ends where one run does, and one update gives the same loss
on both devices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from border_py.agents import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.run import TrainOptions, evaluate, experiment_from_dict, train, zoo
from border_py.run.zoo import merge
from tests.agents.random_buffer import random_buffer
from tests.run.conftest import make_entry_dataset, tiny

pytestmark = pytest.mark.cuda

QUIET = TrainOptions(progress=False, quiet=True)
OPTS = 40
CASES = [
    ("dqn", "CartPole-v1"),
    ("iqn", "CartPole-v1"),
    ("qrdqn", "CartPole-v1"),
    ("tqc", "Pendulum-v1"),
    ("crossq", "Pendulum-v1"),
    ("sac", "Pendulum-v1"),
    ("td3", "Pendulum-v1"),
    ("ppo", "Pendulum-v1"),
    ("a2c", "Pendulum-v1"),
    ("bc", "pendulum-medium-v0"),
    ("awac", "pendulum-medium-v0"),
    ("iql", "pendulum-medium-v0"),
    ("cql", "pendulum-medium-v0"),
    ("td3bc", "pendulum-medium-v0"),
]
DISCRETE = {"CartPole-v1"}


@pytest.fixture(autouse=True)
def _needs_cuda() -> None:
    # Not a skip: this tier is only ever selected on a GPU machine, where no GPU is a broken machine.
    assert torch.cuda.is_available(), "make test-cuda needs a CUDA GPU (torch.cuda.is_available() is False)"


def _run_data(algo: str, env_id: str, tmp_path: Path, device: str, opts: int = OPTS) -> dict[str, Any]:
    data = zoo.entry(algo, env_id).data
    datasets = tmp_path / "datasets"
    if not datasets.exists():
        make_entry_dataset(data, datasets)
    return merge(tiny(data, tmp_path / "run", datasets, opts=opts), {"agent": {"device": device}})


@pytest.mark.parametrize(("algo", "env_id"), CASES, ids=[f"{a}-{e}" for a, e in CASES])
def test_a_model_trained_on_cuda_evaluates_on_cuda_and_on_the_cpu(
    algo: str, env_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    data = _run_data(algo, env_id, tmp_path, "cuda")
    result = train(experiment_from_dict(data), QUIET)
    assert result.opt_steps == OPTS
    assert evaluate(experiment_from_dict(data), tmp_path / "run", quiet=True) == result.best_score
    on_cpu = evaluate(experiment_from_dict(merge(data, {"agent": {"device": "cpu"}})), tmp_path / "run")
    if env_id in DISCRETE:
        assert on_cpu == result.best_score
    else:
        # The CPU acts through numpy, the GPU through torch: the same policy to float rounding.
        assert on_cpu == pytest.approx(result.best_score, rel=1e-3, abs=0.1)


def test_a_pong_model_trained_on_cuda_plays_on_the_cpu(tmp_path: Path) -> None:
    """The Nature CNN on uint8 frames: 4 opt steps on ``cuda``, then a whole game on the CPU from the saved
    checkpoint."""
    data = _run_data("dqn", "ALE/Pong-v5", tmp_path, "cuda", opts=4)
    assert train(experiment_from_dict(data), QUIET).opt_steps == 4
    cpu = experiment_from_dict(merge(data, {"agent": {"device": "cpu"}}))
    score = evaluate(cpu, tmp_path / "run", checkpoint="4", episodes=1)
    assert -21.0 <= score <= 21.0


def _weights(checkpoint: Path) -> dict[str, torch.Tensor]:
    tensors: dict[str, torch.Tensor] = {}
    for path in sorted(checkpoint.glob("*.pt")):
        if path.name == "state.pt":
            continue
        loaded = torch.load(path, map_location="cpu", weights_only=True)
        for key, value in loaded.items():
            if isinstance(value, torch.Tensor):
                tensors[f"{path.name}:{key}"] = value
    assert tensors, f"no weights in {checkpoint}"
    return tensors


@pytest.mark.parametrize(("algo", "env_id"), [("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")])
def test_a_resumed_cuda_run_ends_where_one_run_ends(
    algo: str, env_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    whole = _run_data(algo, env_id, tmp_path / "whole", "cuda", opts=2 * OPTS)
    train(experiment_from_dict(whole), QUIET)
    halves = _run_data(algo, env_id, tmp_path / "halves", "cuda", opts=OPTS)
    train(experiment_from_dict(halves), QUIET)
    halves["trainer"]["max_opts"] = 2 * OPTS
    train(experiment_from_dict(halves), TrainOptions(progress=False, quiet=True, resume=True))
    one = _weights(tmp_path / "whole" / "run" / str(2 * OPTS))
    two = _weights(tmp_path / "halves" / "run" / str(2 * OPTS))
    assert one.keys() == two.keys()
    differ = {k: float((one[k] - two[k]).abs().max()) for k in one if not torch.equal(one[k], two[k])}
    assert not differ, differ


def test_one_dqn_update_gives_the_same_loss_on_cuda_and_on_the_cpu() -> None:
    losses: dict[str, list[float]] = {}
    for device in ("cpu", "cuda"):
        agent = Dqn(
            DqnConfig(hidden=(64, 64), batch_size=32, target_update_interval=5, device=device),
            Spaces(obs_shape=(4,), n_actions=2),
            seed=0,
        )
        buffer = random_buffer(256, seed=1)
        records = [agent.opt(buffer) for _ in range(20)]
        losses[device] = [r.get_scalar("train/loss") for r in records if r is not None]
    assert len(losses["cpu"]) == 20
    assert losses["cuda"] == pytest.approx(losses["cpu"], rel=1e-4, abs=1e-6)


@pytest.mark.parametrize(("algo", "env_id"), [("sac", "Pendulum-v1"), ("ppo", "Pendulum-v1")])
def test_a_cuda_run_resumes_on_the_cpu_and_says_it_is_not_bit_for_bit(
    algo: str,
    env_id: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    data = _run_data(algo, env_id, tmp_path, "cuda")
    train(experiment_from_dict(data), QUIET)
    later = merge(data, {"agent": {"device": "cpu"}, "trainer": {"max_opts": 2 * OPTS}})
    result = train(experiment_from_dict(later), TrainOptions(progress=False, resume=True))
    assert result.opt_steps == 2 * OPTS
    warning = "warning: agent.device cuda -> cpu: the run continues, but not bit for bit"
    assert warning in capsys.readouterr().err
