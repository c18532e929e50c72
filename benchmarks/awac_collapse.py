"""AWAC's late collapse on pendulum-medium-v0 (issue 37, item 3): border_py's AWAC beside d3rlpy's, what
diverges over training.

Each side trains ``--steps`` gradient steps on the same dataset (after ``make datasets``) and every
``--every`` steps logs, on 4,096 fixed probe transitions of the dataset: the greedy return (10 episodes,
reset seeds 0..9), the actor's log standard deviation and mean log-probability of the dataset's actions, the
fraction of greedy actions at the bound (``|unit| > 0.99``), the critics' ``min_i Q_i(s, a)`` on the dataset's
actions beside the discounted return that followed in the data (the behaviour's Q, a scale to compare), and
``min_i Q_i(s, a_pi)`` at the policy's own action, the advantage weights' mean, largest value, fraction at the
clip and effective sample size (``(sum w)^2 / sum w^2`` over the batch, as a fraction of it).

    nice -n 5 .venv/bin/python -m benchmarks.awac_collapse ours --seed 0
    nice -n 5 .venv/bin/python -m benchmarks.awac_collapse ours --seed 0 --set lam=10 batch_size=256
    nice -n 5 .venv/bin/python -m benchmarks.awac_collapse d3rlpy --seed 0 --set lam=10 batch_size=256
    .venv/bin/python -m benchmarks.awac_collapse table --out runs/awac_collapse.jsonl

``ours`` runs the zoo's settings (`AwacConfig` with ``lam`` 10) and ``--set`` changes its fields; ``d3rlpy``
runs d3rlpy's `AWACConfig` with 256x256 networks and its scalers (as `benchmarks.offline` does) and
``--set`` changes its fields. One JSON line per measurement to ``--out`` (appended) and to stdout.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import torch

from benchmarks.end_to_end import Act, greedy_return
from benchmarks.offline import PENDULUM, d3rlpy_config, d3rlpy_learner
from border_py.agents import Awac, AwacConfig
from border_py.agents.iql.losses import advantage_weights
from border_py.agents.policies import ActionScale
from border_py.base import Spaces
from border_py.replay_buffer import ArrayDataset
from border_py.seeding import configure_torch

ZOO = AwacConfig(lam=10.0)
"""The zoo's pendulum-medium-v0 entry (border_py/zoo/awac.yaml)."""
N_PROBE, GAMMA = 4096, 0.99
Measure = Callable[[dict[str, torch.Tensor]], dict[str, float]]
"""The diagnostics on the probe transitions (env actions, raw observations)."""


def returns_to_go(dataset: ArrayDataset) -> np.ndarray[Any, Any]:
    """Each transition's discounted return over the rest of its episode in the data (truncated at the
    episode's end: Pendulum's episodes are 200 steps, so late transitions read low)."""
    s = dataset.storage
    n = len(dataset)
    reward, done = np.asarray(s.reward[:n], np.float64), np.asarray(s.is_terminated[:n], bool)
    end = done | np.asarray(s.is_truncated[:n], bool)
    out, g = np.zeros(n), 0.0
    for i in range(n - 1, -1, -1):
        g = reward[i] + (0.0 if end[i] else GAMMA * g)
        out[i] = g
    return out


def probe(dataset: ArrayDataset, seed: int) -> dict[str, torch.Tensor]:
    """`N_PROBE` fixed transitions of the dataset and the returns that followed them."""
    ix = np.random.default_rng(seed + 1000).integers(0, len(dataset), N_PROBE)
    s = dataset.storage
    return {
        "obs": torch.as_tensor(np.asarray(s.obs[ix], np.float32)),
        "act": torch.as_tensor(np.asarray(s.act[ix], np.float32)),
        "mc": torch.as_tensor(returns_to_go(dataset)[ix], dtype=torch.float32),
    }


def weight_stats(weight: torch.Tensor, clip: float | None) -> dict[str, float]:
    """The advantage weights' mean, maximum, fraction at ``clip`` and effective sample size fraction."""
    w = weight.reshape(-1).double()
    ess = float(w.sum() ** 2 / (w**2).sum()) / len(w)
    at_clip = float((w >= clip * (1 - 1e-6)).double().mean()) if clip is not None else 0.0
    return {"w_mean": float(w.mean()), "w_max": float(w.max()), "w_at_clip": at_clip, "w_ess": ess}


def ours(seed: int, overrides: dict[str, Any]) -> tuple[Callable[[int], None], Act, Measure]:
    """Our AWAC with the zoo's settings and ``overrides``: train, greedy act, measure."""
    config = attrs.evolve(ZOO, **overrides)
    low, high = PENDULUM.bounds
    dataset = PENDULUM.dataset.build(seed)
    agent = Awac(config, Spaces(obs_shape=(3,), action_low=low, action_high=high), seed=seed)

    def train(steps: int) -> None:
        agent.train()
        for _ in range(steps):
            agent.opt(dataset)
        agent.eval()

    @torch.no_grad()
    def measure(p: dict[str, torch.Tensor]) -> dict[str, float]:
        actor, critic = agent.parts.actor.net, agent.parts.critic.net
        obs, act = agent.parts.normalizer.net(p["obs"]), agent._unit(p["act"])
        mean, log_std = actor(obs)
        q = critic(obs, act).min(dim=0).values
        q_pi = critic(obs, mean).min(dim=0).values
        v = critic(obs, actor.sample(obs, torch.Generator().manual_seed(0)).clamp(-1, 1))
        weight = advantage_weights(q - v.min(dim=0).values, 1.0 / config.lam, config.max_weight)  # AWAC's own
        return {
            "log_std": float(log_std.mean()),
            "logp_data": float(actor.log_prob(obs, act).mean()),
            **_common(mean, q, q_pi, p["mc"]),
            **weight_stats(weight, config.max_weight),
        }

    return train, agent.sample, measure


def _common(mean: torch.Tensor, q: torch.Tensor, q_pi: torch.Tensor, mc: torch.Tensor) -> dict[str, float]:
    return {
        "at_bound": float((mean.abs() > 0.99).double().mean()),
        "q_data": float(q.mean()),
        "q_data_max": float(q.max()),
        "mc_data": float(mc.mean()),
        "q_pi": float(q_pi.mean()),
        "q_pi_minus_data": float((q_pi - q).mean()),
    }


def d3rlpy_side(seed: int, overrides: dict[str, Any]) -> tuple[Callable[[int], None], Act, Measure]:
    """d3rlpy's AWAC (`benchmarks.offline`'s setup, ``overrides`` on its config): train, act, measure."""
    from d3rlpy.models.torch import build_gaussian_distribution

    config = dataclasses.replace(d3rlpy_config("AWAC", {}), **overrides)
    train, act, algo = d3rlpy_learner("AWAC", PENDULUM, seed, config)
    scale = ActionScale(*PENDULUM.bounds, torch.device("cpu"))

    @torch.no_grad()
    def measure(p: dict[str, torch.Tensor]) -> dict[str, float]:
        impl = algo.impl
        obs = algo.observation_scaler.transform(p["obs"]) if algo.observation_scaler else p["obs"]
        act = scale.to_unit(p["act"])
        out = impl._modules.policy(obs)
        dist = build_gaussian_distribution(out)
        forward = impl._q_func_forwarder
        q = forward.compute_expected_q(obs, act, "min").reshape(-1)
        q_pi = forward.compute_expected_q(obs, out.squashed_mu, "min").reshape(-1)
        v = forward.compute_expected_q(obs, dist.sample(), "min").reshape(-1)
        weight = torch.softmax((q - v) / config.lam, dim=0) * len(q)
        return {
            "log_std": float(out.logstd.mean()),
            "logp_data": float(dist.log_prob(act).mean()),
            **_common(out.squashed_mu, q, q_pi, p["mc"]),
            **weight_stats(weight, None),
        }

    return train, act, measure


def run(side: str, seed: int, steps: int, every: int, overrides: dict[str, Any], out: Path) -> None:
    """Trains one side, measuring every ``every`` steps; one JSON line per measurement."""
    torch.manual_seed(seed)
    train, act, measure = (ours if side == "ours" else d3rlpy_side)(seed, overrides)
    p = probe(PENDULUM.dataset.build(seed), seed)
    label = " ".join(f"{k}={v}" for k, v in overrides.items())
    for done in range(every, steps + 1, every):
        train(every)
        row = {"side": side, "seed": seed, "set": label, "step": done}
        row |= {"return": round(greedy_return(act, PENDULUM.env_id), 1)}
        row |= {k: round(v, 4) for k, v in measure(p).items()}
        line = json.dumps(row)
        print(line, flush=True)
        with out.open("a") as f:
            f.write(line + "\n")


def summary(rows: list[dict[str, Any]]) -> str:
    """A markdown table, one line per side, settings and seed: the best and the final return, the first
    step at which the critics valued a dataset transition above 0 (impossible: Pendulum's rewards are at
    most 0, so every true Q is too), the largest such value and the mean ``Q(s, a)`` at the end, and the
    smallest effective sample size of the weights."""
    lines = [
        "| side | settings | seed | best return (step) | final return | first Q > 0 | "
        "final max / mean Q(s, a) | smallest weights' ESS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key in dict.fromkeys((r["side"], r["set"], r["seed"]) for r in rows):
        run = sorted((r for r in rows if (r["side"], r["set"], r["seed"]) == key), key=lambda r: r["step"])
        best, last = max(run, key=lambda r: r["return"]), run[-1]
        first = next((f"{r['step']:,}" for r in run if r["q_data_max"] > 0.0), "never")
        lines.append(
            f"| {key[0]} | {key[1] or 'zoo'} | {key[2]} | {best['return']:.1f} ({best['step']:,}) | "
            f"{last['return']:.1f} ({last['step']:,}) | {first} | "
            f"{last['q_data_max']:.1f} / {last['q_data']:.1f} | {min(r['w_ess'] for r in run):.2f} |"
        )
    return "\n".join(lines)


def _value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.awac_collapse {ours,d3rlpy} --seed N [--set k=v ...]``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("side", choices=("ours", "d3rlpy", "table"), help="table: summarise --out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="config fields")
    parser.add_argument("--out", type=Path, default=Path("runs/awac_collapse.jsonl"))
    args = parser.parse_args(argv)
    if args.side == "table":
        print(summary([json.loads(line) for line in args.out.read_text().splitlines() if line]))
        return 0
    overrides = {k: _value(v) for k, v in (item.split("=", 1) for item in args.set)}
    configure_torch(1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    run(args.side, args.seed, args.steps, args.every, overrides, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
