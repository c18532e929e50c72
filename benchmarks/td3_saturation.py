"""TD3's actor saturation (issue 37): border_py's TD3 beside Stable-Baselines3's from the same weights.

``lockstep``: for each task and seed, 10,000 uniformly random env steps (the warm-up both take) fill one
set of transitions; border_py's TD3 and SB3's TD3 start from the same actor and critic weights (ours
copied into SB3's) and take the same updates: the same batch indices and the same target-smoothing noise
at every update. Every ``--every`` updates it logs, on 256 fixed probe states from the warm-up, the mean
``|pre-tanh|`` of the actor, the fraction of action components at ``|a| > 0.99`` of the half range, the
actor loss ``-Q1(s, pi(s))`` (in each side's own critic) and the largest parameter difference from SB3.
Where the action box is not ``[-1, 1]`` (InvertedPendulum's ``[-3, 3]``), a third learner is border_py's
TD3 built on ``[-1, 1]`` and fed the rescaled actions: SB3's critic sees actions rescaled to ``[-1, 1]``.

``loop``: both full training loops (border_py's `Trainer`, SB3's ``learn``) with RL Zoo's MuJoCo settings
for ``--steps`` env steps, evaluating every ``--every`` updates: the deterministic return (5 episodes) and
the same saturation measures.

    PYTHONPATH=<sb3> nice -n 19 .venv/bin/python -m benchmarks.td3_saturation lockstep --updates 3000
    PYTHONPATH=<sb3> nice -n 19 .venv/bin/python -m benchmarks.td3_saturation loop \
        --tasks InvertedPendulum-v5 --seeds 0 --steps 20000

Writes one JSON line per measurement to ``--out`` and prints a table.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import torch

from border_py.agents import Td3, Td3Config
from border_py.base import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

TASKS = ("InvertedPendulum-v5", "Hopper-v5", "Walker2d-v5", "HalfCheetah-v5", "Reacher-v5")
WARMUP, BATCH, GAMMA, N_PROBE = 10_000, 256, 0.99, 256
Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Warmup:
    """Transitions of a uniformly random policy, actions in env units, and the action bounds."""

    obs: Array
    act: Array
    reward: Array
    next_obs: Array
    terminated: Array
    low: Array
    high: Array

    def unit_act(self) -> Array:
        """The actions rescaled to ``[-1, 1]`` (what SB3 stores)."""
        return (2.0 * (self.act - self.low) / (self.high - self.low) - 1.0).astype(np.float32)


def collect(env_id: str, seed: int, n: int) -> Warmup:
    """``n`` env steps of uniformly random actions (reset on termination or truncation)."""
    env = gym.make(env_id)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "act", "reward", "next_obs", "terminated")}
    for _ in range(n):
        act = env.action_space.sample()
        next_obs, reward, terminated, truncated, _ = env.step(act)
        for key, value in zip(rows, (obs, act, reward, next_obs, terminated), strict=True):
            rows[key].append(value)
        obs = env.reset()[0] if terminated or truncated else next_obs
    space = env.action_space
    assert isinstance(space, gym.spaces.Box)
    env.close()
    arrays = {k: np.asarray(v, dtype=np.float32) for k, v in rows.items()}
    return Warmup(**arrays, low=space.low.astype(np.float32), high=space.high.astype(np.float32))


class IndexedBuffer:
    """A `ReplayBuffer` that hands out the rows ``indices[0], indices[1], ...`` in turn."""

    def __init__(self, data: Warmup, act: Array, indices: npt.NDArray[np.int64]) -> None:
        self.data, self.act, self.indices, self.calls = data, act, indices, 0

    def next_rows(self) -> dict[str, torch.Tensor]:
        """The next batch's columns as tensors."""
        ix = self.indices[self.calls]
        self.calls += 1
        d = self.data
        cols = {"obs": d.obs, "act": self.act, "reward": d.reward, "next_obs": d.next_obs}
        out = {k: torch.as_tensor(v[ix]) for k, v in cols.items()}
        out["terminated"] = torch.as_tensor(d.terminated[ix])
        return out

    def batch(self, size: int) -> TransitionBatch:
        """The next rows as border_py's batch."""
        r = self.next_rows()
        assert r["obs"].shape[0] == size
        n = r["reward"].shape[0]
        return TransitionBatch(
            obs=r["obs"], act=r["act"], next_obs=r["next_obs"], reward=r["reward"],
            is_terminated=r["terminated"], is_truncated=torch.zeros(n),
            discount=torch.full((n,), GAMMA), ix_sample=self.indices[self.calls - 1],
        )  # fmt: skip

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[np.float32]) -> None:
        """Uniform sampling: nothing to update."""

    def __len__(self) -> int:
        return int(self.data.obs.shape[0])


def sb3_samples(buffer: IndexedBuffer) -> Callable[..., Any]:
    """A replacement for SB3's ``replay_buffer.sample`` that returns ``buffer``'s next rows."""
    from stable_baselines3.common.type_aliases import ReplayBufferSamples

    def sample(batch_size: int, env: Any = None) -> Any:
        r = buffer.next_rows()
        return ReplayBufferSamples(
            r["obs"], r["act"], r["next_obs"], r["terminated"][:, None], r["reward"][:, None]
        )

    return sample


def ours(spaces: Spaces, seed: int) -> Td3:
    """border_py's TD3 with the zoo's MuJoCo settings (RL Zoo's)."""
    return Td3(Td3Config(actor_hidden=(400, 300), critic_hidden=(400, 300), batch_size=BATCH), spaces, seed)


def sb3_model(env_id: str, seed: int, optimizer_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """SB3's TD3 with RL Zoo's MuJoCo settings (SB3's defaults but ``[400, 300]``)."""
    from stable_baselines3 import TD3
    from stable_baselines3.common.logger import Logger

    policy_kwargs = {"net_arch": [400, 300], "optimizer_kwargs": optimizer_kwargs or {}}
    model = TD3("MlpPolicy", gym.make(env_id), policy_kwargs=policy_kwargs, batch_size=BATCH,
                seed=seed, device="cpu", **kwargs)  # fmt: skip
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def copy_weights(src: Td3, model: Any) -> None:
    """Ours into SB3's: actor ``net`` -> ``mu`` (SB3's ends in its Tanh), critic ``i`` -> ``qf<i>``,
    targets equal to the online networks."""
    actor, critic = src.parts.actor, src.parts.critic
    with torch.no_grad():
        for ours_net, theirs in ((actor.net.net, model.actor.mu), (actor.target.net, model.actor_target.mu)):
            for a, b in zip(ours_net.parameters(), theirs.parameters(), strict=True):
                b.copy_(a)
        for ours_c, theirs_c in ((critic.net, model.critic), (critic.target, model.critic_target)):
            for i in range(ours_c.n):
                qf = getattr(theirs_c, f"qf{i}")
                for a, b in zip(ours_c.member(i).parameters(), qf.parameters(), strict=True):
                    b.copy_(a)


@dataclass
class Side:
    """One learner: its update, and its actor (pre-tanh net, action scale) and first critic."""

    name: str
    update: Callable[[int], float | None]
    pre_tanh: Callable[[torch.Tensor], torch.Tensor]
    q1: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    scale: torch.Tensor
    bias: torch.Tensor
    params: Callable[[], list[torch.Tensor]]


def our_side(name: str, agent: Td3, buffer: IndexedBuffer, noise_seed: int) -> Side:
    """Our agent as a `Side`: each update reseeds its generator with ``noise_seed + i``."""

    def update(i: int) -> float | None:
        agent.generator.manual_seed(noise_seed + i)
        record = agent.opt(buffer)
        assert isinstance(record, Record)
        loss = record.get("train/actor_loss")
        return loss if isinstance(loss, float) else None

    actor, critic = agent.parts.actor.net, agent.parts.critic.net
    nets = [actor.net, critic]
    return Side(name, update, actor.net, critic.first, actor.scale, actor.bias,
                lambda: [p for n in nets for p in n.parameters()])  # fmt: skip


def sb3_side(model: Any, noise_seed: int) -> Side:
    """SB3's TD3 as a `Side`: each ``train(1)`` draws its smoothing noise after ``torch.manual_seed``."""

    def update(i: int) -> float | None:
        torch.manual_seed(noise_seed + i)
        model.train(gradient_steps=1, batch_size=BATCH)
        return float(model.logger.name_to_value["train/actor_loss"]) if model._n_updates % 2 == 0 else None

    def q1(obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = model.critic.q1_forward(obs, act).squeeze(-1)
        return out

    nets = [model.actor.mu, model.critic.qf0, model.critic.qf1]
    one = torch.ones(model.actor.action_space.shape[0])
    return Side("sb3", update, model.actor.mu[:-1], q1, one, 0 * one,
                lambda: [p for n in nets for p in n.parameters()])  # fmt: skip


@torch.no_grad()
def probe(side: Side, states: torch.Tensor) -> dict[str, float]:
    """Mean ``|pre-tanh|``, the fraction of components with ``|tanh| > 0.99``, and ``-Q1(s, pi(s))``."""
    z = side.pre_tanh(states)
    act = side.bias + side.scale * torch.tanh(z)
    return {
        "pre_tanh_abs": float(z.abs().mean()),
        "saturated": float((torch.tanh(z).abs() > 0.99).float().mean()),
        "probe_actor_loss": float(-side.q1(states, act).mean()),
    }


@torch.no_grad()
def max_diff(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    """The largest absolute difference between two parameter lists."""
    return max(float((x - y).abs().max()) for x, y in zip(a, b, strict=True))


def lockstep_sides(env_id: str, seed: int, data: Warmup, updates: int) -> list[Side]:
    """Ours (env units), ours on ``[-1, 1]`` where the box differs, and SB3's, from the same weights."""
    indices = np.random.default_rng(seed).integers(0, len(data.obs), (updates, BATCH))
    noise_seed = 1_000_000 * (seed + 1)
    obs_shape = (data.obs.shape[1],)
    agent = ours(Spaces(obs_shape=obs_shape, action_low=data.low, action_high=data.high), seed)
    sides = [our_side("ours", agent, IndexedBuffer(data, data.act, indices), noise_seed)]
    unit = np.ones_like(data.low)
    if not (np.array_equal(data.low, -unit) and np.array_equal(data.high, unit)):
        unit_agent = ours(Spaces(obs_shape=obs_shape, action_low=-unit, action_high=unit), seed)
        unit_buffer = IndexedBuffer(data, data.unit_act(), indices)
        sides.append(our_side("ours_unit", unit_agent, unit_buffer, noise_seed))
    # Fused Adam as ours, so that the two differ by rounding only in the Polyak update and the sums.
    model = sb3_model(env_id, seed, learning_starts=0, optimizer_kwargs={"fused": True})
    copy_weights(agent, model)
    model.replay_buffer.sample = sb3_samples(IndexedBuffer(data, data.unit_act(), indices))
    sides.append(sb3_side(model, noise_seed))
    return sides


def lockstep(env_id: str, seed: int, updates: int, every: int) -> Iterator[dict[str, Any]]:
    """Rows of the lockstep comparison, one per side per ``every`` updates (and before the first)."""
    data = collect(env_id, seed, WARMUP)
    states = torch.as_tensor(data.obs[np.random.default_rng(seed + 7).permutation(len(data.obs))[:N_PROBE]])
    sides = lockstep_sides(env_id, seed, data, updates)
    sb3 = sides[-1]
    losses: dict[str, list[float]] = {s.name: [] for s in sides}
    for i in range(updates + 1):
        if i % every == 0 or i in (1, 10, 100):
            for s in sides:
                window = losses[s.name]
                yield {"mode": "lockstep", "env": env_id, "seed": seed, "updates": i, "side": s.name,
                       "actor_loss": float(np.mean(window)) if window else None,
                       "max_param_diff_vs_sb3": max_diff(s.params(), sb3.params()),
                       **probe(s, states)}  # fmt: skip
                window.clear()
        if i < updates:
            for s in sides:
                loss = s.update(i)
                if loss is not None:
                    losses[s.name].append(loss)


def evaluate(act: Callable[[Array], Array], env_id: str, n: int) -> float:
    """The mean return of ``n`` deterministic episodes (reset seeds ``10_000 + i``)."""
    env, total = gym.make(env_id), 0.0
    for i in range(n):
        obs, _ = env.reset(seed=10_000 + i)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(np.asarray(obs, np.float32)))
            total += float(reward)
            done = terminated or truncated
    env.close()
    return total / n


class ProbeEvaluator:
    """border_py's `Evaluator` that also logs the saturation measures of ``agent`` on probe states."""

    def __init__(self, env_id: str, agent: Td3, states: torch.Tensor, rows: list[dict[str, Any]]) -> None:
        self.env_id, self.agent, self.states, self.rows = env_id, agent, states, rows

    def evaluate(self, policy: Any) -> tuple[float, Record]:
        """Scores ``policy`` and appends a row."""
        score = evaluate(policy.sample, self.env_id, 5)
        actor, critic = self.agent.parts.actor.net, self.agent.parts.critic.net
        side = Side("ours", lambda i: None, actor.net, critic.first, actor.scale, actor.bias, list)
        self.rows.append({"updates": self.agent.updates, "return": score, **probe(side, self.states)})
        return score, Record({"eval/episode_return": score})


def loop_ours(env_id: str, seed: int, steps: int, every: int, states: torch.Tensor) -> list[dict[str, Any]]:
    """border_py's `Trainer` with the zoo's TD3 settings (one update per env step after the warm-up)."""
    from border_py import NullRecorder, SimpleReplayBufferConfig, Trainer, TrainerConfig
    from border_py.envs import GymEnvConfig
    from border_py.seeding import seed_everything
    from border_py.step_processor import SimpleStepProcessorConfig

    seed_everything(seed)
    env_config = GymEnvConfig(name=env_id)
    spaces = env_config.build(seed).spaces
    agent = ours(spaces, seed)
    rows: list[dict[str, Any]] = []
    trainer = Trainer(
        TrainerConfig(max_env_steps=steps, max_opts=None, opt_interval=1, warmup_period=WARMUP,
                      eval_interval=every, record_interval=every, seed=seed),
        env_config, SimpleStepProcessorConfig(gamma=GAMMA), SimpleReplayBufferConfig(capacity=steps),
    )  # fmt: skip
    trainer.train(agent, NullRecorder(), ProbeEvaluator(env_id, agent, states, rows))
    return rows


def loop_sb3(env_id: str, seed: int, steps: int, every: int, states: torch.Tensor) -> list[dict[str, Any]]:
    """SB3's ``learn`` with RL Zoo's settings (Gaussian noise of std 0.1, 10,000 random warm-up steps)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.noise import NormalActionNoise

    n_act = gym.make(env_id).action_space.shape
    assert n_act is not None
    noise = NormalActionNoise(np.zeros(n_act), 0.1 * np.ones(n_act))
    model = sb3_model(env_id, seed, learning_starts=WARMUP, action_noise=noise, buffer_size=steps)
    rows: list[dict[str, Any]] = []
    side = sb3_side(model, 0)

    class Probe(BaseCallback):  # type: ignore[misc]  # SB3 is untyped here
        def _on_step(self) -> bool:
            if model._n_updates > 0 and model._n_updates % every == 0:
                score = evaluate(lambda o: model.predict(o, deterministic=True)[0], env_id, 5)
                rows.append({"updates": model._n_updates, "return": score, **probe(side, states)})
            return True

    model.learn(steps, callback=Probe())
    return rows


def _rescaled(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    shape = env.action_space.shape
    assert shape is not None
    one = np.ones(shape, np.float32)
    return gym.wrappers.RescaleAction(env, -one, one)


def unit_box_id(env_id: str) -> str:
    """The id of ``env_id`` with its actions rescaled to ``[-1, 1]`` (registered on first use)."""
    unit_id = f"unit-{env_id}"
    if unit_id not in gym.registry:
        gym.register(unit_id, lambda **kw: _rescaled(gym.make(env_id, **kw)))
    return unit_id


def run_loop(env_id: str, seed: int, steps: int, every: int) -> Iterator[dict[str, Any]]:
    """Rows of both full loops on ``env_id``, and of ours on its actions rescaled to ``[-1, 1]`` where
    the box is not that already."""
    data = collect(env_id, seed + 100, N_PROBE)  # probe states of a random policy, not of either run
    states = torch.as_tensor(data.obs)
    runs = [("ours", env_id, loop_ours), ("sb3", env_id, loop_sb3)]
    if not (np.all(data.low == -1.0) and np.all(data.high == 1.0)):
        runs.insert(1, ("ours_unit", unit_box_id(env_id), loop_ours))
    for name, run_id, fn in runs:
        for row in fn(run_id, seed, steps, every, states):
            yield {"mode": "loop", "env": env_id, "seed": seed, "side": name, **row}


def main() -> None:
    """Parses the flags, runs the mode, writes and prints the rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("lockstep", "loop"))
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--updates", type=int, default=3000, help="lockstep: updates per run")
    parser.add_argument("--steps", type=int, default=20_000, help="loop: env steps per run")
    parser.add_argument("--every", type=int, default=500, help="in updates: log interval")
    parser.add_argument("--out", type=Path, default=Path("runs/td3_saturation.jsonl"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as out:
        for env_id in args.tasks:
            for seed in args.seeds:
                rows = (
                    lockstep(env_id, seed, args.updates, args.every)
                    if args.mode == "lockstep"
                    else run_loop(env_id, seed, args.steps, args.every)
                )
                for row in rows:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                   for k, v in row.items() if k != "mode"), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
