"""TD3+BC's update against d3rlpy's, step for step: both start from the same weights, take the same
batches of a dataset (observations normalised once, outside both) and the same smoothing noise, and the
largest difference between their parameters is printed after each block of updates.

It separates the two things a gap in learned returns can come from: different arithmetic (the parameters
part at once) or a different draw of seeds and batches (they stay equal to float32 rounding, and the
returns differ only through the randomness). ``python -m benchmarks.d3rlpy_parity [--hopper] [--steps N]
[--control NUDGE] [--max-gap GAP]``; ``make bench-quick`` runs 20 updates and fails above 1e-5.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from benchmarks.offline import BATCHES, HOPPER_RAW, PENDULUM, Task, d3rlpy_config
from border_py.agents import Td3Bc, Td3BcConfig
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.policies import ActionScale
from border_py.base import Spaces
from border_py.datasets import observation_stats
from border_py.replay_buffer import ArrayDataset
from border_py.replay_buffer.transition import TransitionBatch
from border_py.seeding import configure_torch

BATCH = BATCHES["TD3+BC"]
_COLUMNS = ("obs", "next_obs", "act", "reward", "is_terminated", "discount")


class _Ours:
    """Our agent fed a given batch: ``opt`` takes it from this stand-in buffer."""

    def __init__(self, agent: Td3Bc, size: int) -> None:
        self.agent, self.size = agent, size
        self.next: TransitionBatch | None = None
        agent.train()

    def __len__(self) -> int:
        return self.size

    def batch(self, n: int) -> TransitionBatch:
        assert self.next is not None
        assert len(self.next) == n
        return self.next

    def networks(self) -> list[torch.nn.Module]:
        """The actor, its target, the critics and their target."""
        a = self.agent.parts
        return [a.actor.net, a.actor.target, a.critic.net, a.critic.target]

    def update(self, b: dict[str, torch.Tensor], noise_state: torch.Tensor, step: int) -> None:
        n = len(b["reward"])
        self.agent.generator.set_state(noise_state)
        self.next = TransitionBatch(
            obs=b["obs"], act=b["act"], next_obs=b["next_obs"], reward=b["reward"], is_terminated=b["done"],
            is_truncated=torch.zeros(n), discount=b["discount"], ix_sample=np.arange(n),
        )  # fmt: skip
        self.agent.opt(self)  # type: ignore[arg-type]


class _D3rlpy:
    """d3rlpy's TD3+BC with the benchmark's settings and no scalers (the batches come normalised), fed
    through its ``inner_update``."""

    def __init__(self, obs_dim: int, act_dim: int) -> None:
        self.algo = d3rlpy_config("TD3+BC", {}).create(device="cpu:0")
        self.algo.create_impl((obs_dim,), act_dim)

    def networks(self) -> list[torch.nn.Module]:
        """The actor, its target, the critics and their target (d3rlpy hands them out only privately)."""
        m = self.algo.impl._modules
        return [m.policy, m.targ_policy, m.q_funcs, m.targ_q_funcs]

    def update(self, b: dict[str, torch.Tensor], noise_state: torch.Tensor, step: int) -> None:
        from d3rlpy.torch_utility import TorchMiniBatch

        n = len(b["reward"])
        column = {k: v.reshape(n, 1) for k, v in b.items() if k in ("reward", "done")}
        batch = TorchMiniBatch(
            observations=b["obs"], actions=b["act"], rewards=column["reward"],
            next_observations=b["next_obs"], next_actions=b["act"], returns_to_go=column["reward"],
            terminals=column["done"], intervals=torch.ones(n, 1), device="cpu:0",
        )  # fmt: skip
        torch.random.set_rng_state(noise_state)  # d3rlpy draws the smoothing noise from torch's generator
        # d3rlpy moves the policy on grad_step 0, 2, ...; ours after updates 2, 4, ...: shift it by one.
        self.algo.impl.inner_update(batch, step + 1)


def _batches(task: Task, dataset: ArrayDataset, steps: int, seed: int) -> list[dict[str, torch.Tensor]]:
    """``steps`` uniform batches of the dataset's transitions, observations normalised with its statistics
    and actions mapped to unit actions, as both sides see them inside."""
    s, rng = dataset.storage, np.random.default_rng(seed)
    normalize = ObsNormalizer(s.obs.shape[1], *observation_stats(dataset))
    scale = ActionScale(*task.bounds, torch.device("cpu"))
    out = []
    for _ in range(steps):
        ix = rng.integers(0, len(dataset), BATCH)
        col = {k: torch.as_tensor(np.asarray(getattr(s, k)[ix], np.float32)) for k in _COLUMNS}
        out.append({
            "obs": normalize(col["obs"]), "next_obs": normalize(col["next_obs"]),
            "act": scale.to_unit(col["act"]), "reward": col["reward"].reshape(-1),
            "done": col["is_terminated"].reshape(-1), "discount": col["discount"].reshape(-1),
        })  # fmt: skip
    return out


def _copy_weights(ours: _Ours, other: _D3rlpy | _Ours, nudge: float, seed: int) -> None:
    """Our initial weights into the other side's networks and targets (the same layer order, shapes
    checked), each moved by ``nudge`` times standard normal noise."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mine, net in zip(ours.networks(), other.networks(), strict=True):
            for a, b in zip(mine.parameters(), net.parameters(), strict=True):
                assert a.shape == b.shape, (a.shape, b.shape)
                b.copy_(a + nudge * torch.randn(a.shape, generator=generator))


@torch.no_grad()
def _gap(a: torch.nn.Module, b: torch.nn.Module | list[torch.Tensor]) -> float:
    """The largest absolute difference between two networks' parameters, layer by layer."""
    theirs = b if isinstance(b, list) else list(b.parameters())
    return max(float((x - y).abs().max()) for x, y in zip(a.parameters(), theirs, strict=True))


def parity(
    task: Task, steps: int, seed: int, report_every: int, nudge: float | None
) -> list[tuple[int, float, float, float, float]]:
    """``(updates, actor moved, actor gap, critics moved, critics gap)`` after every ``report_every``
    updates, up to ``steps``: how far our parameters moved from their start, and how far from the other
    side's: d3rlpy's, or with ``nudge`` a second copy of ours whose weights start that far off (the
    control: how fast float32 rounding alone drives two runs of one algorithm apart)."""
    torch.manual_seed(seed)  # the smoothing noise comes from torch's generator: the same each run
    dataset = task.dataset.build(seed)
    obs_dim, act_dim = dataset.storage.obs.shape[1], len(task.low)
    unit = (-np.ones(act_dim, np.float32), np.ones(act_dim, np.float32))
    config = Td3BcConfig(batch_size=BATCH, normalize_obs=False)
    ours = _Ours(
        Td3Bc(config, Spaces(obs_shape=(obs_dim,), action_low=unit[0], action_high=unit[1]), seed=seed),
        len(dataset),
    )
    other = (
        _D3rlpy(obs_dim, act_dim)
        if nudge is None
        else _Ours(
            Td3Bc(config, Spaces(obs_shape=(obs_dim,), action_low=unit[0], action_high=unit[1]), seed=0),
            len(dataset),
        )
    )
    _copy_weights(ours, other, nudge or 0.0, seed)
    start = [[p.detach().clone() for p in ours.networks()[i].parameters()] for i in (0, 2)]
    rows = []
    for i, b in enumerate(_batches(task, dataset, steps, seed)):
        state = torch.random.get_rng_state()
        ours.update(b, state, i)
        other.update(b, state, i)
        if (i + 1) % report_every == 0:
            (actor, _, critic, _), (their_actor, _, their_critic, _) = ours.networks(), other.networks()
            rows.append((
                i + 1, _gap(actor, start[0]), _gap(actor, their_actor),
                _gap(critic, start[1]), _gap(critic, their_critic),
            ))  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    """Prints the parameter gaps as a markdown table."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--hopper", action="store_true", help="hopper-medium instead of pendulum-medium")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--control", type=float, metavar="NUDGE", help="against a copy of ours whose weights start NUDGE off"
    )
    parser.add_argument(
        "--max-gap",
        type=float,
        help="exit 1 if the sides part by more than this (a check: `make bench-quick`)",
    )
    args = parser.parse_args(argv)
    configure_torch(1)
    task = HOPPER_RAW if args.hopper else PENDULUM
    try:
        rows = parity(task, args.steps, args.seed, max(1, args.steps // 10), args.control)
    except FileNotFoundError as exc:  # `make datasets` (or `datasets-hopper`) builds it
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    other = "d3rlpy" if args.control is None else f"ours nudged by {args.control:g}"
    print(f"TD3+BC on {task.dataset.dataset_id}, batch {BATCH}: largest |ours - {other}| per parameter\n")
    print("| updates | actor moved | actor gap | critics moved | critics gap |\n|---|---|---|---|---|")
    for step, *values in rows:
        print(f"| {step:,} | " + " | ".join(f"{v:.2e}" for v in values) + " |")
    worst = max(max(row[2], row[4]) for row in rows)
    if args.max_gap is not None and worst > args.max_gap:
        print(
            f"error: the sides parted by {worst:.2e}, more than --max-gap {args.max_gap:g}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
