"""Golden checkpoints: each agent kind acted and trained a few steps from a fixed seed on fixed data, saved as
the code of border_py 0.2.0 saved it (``tests/agents/golden/<case>/``). `tests/agents/test_golden.py` runs
the same steps with today's code and asserts every saved tensor, number and action is identical, and that
the golden checkpoint loads: a change to an agent's internals (its base class, its constructor) keeps
both its arithmetic and its checkpoint format, bit for bit.

The agents with critics (SAC, TD3, TD3+BC, IQL, AWAC, CQL) were written again when their critics became one
stacked module (`border_py.agents.ensemble.CriticEnsemble`): the layout of ``critic.pt`` changed and the
batched matmul rounds differently (actions moved by at most 3e-8 over these steps). Their 0.2.0 files are
kept in ``golden_0.2.0/`` and must still load.

Written once with ``python -m tests.agents.golden`` (tiny networks; 1 torch thread). Valid for the pinned
torch (2.13.0, CPU) on x86-64: another build may round differently, and then these files are remade.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from border_py import PerConfig, RolloutBufferConfig, Transition
from border_py.agents import (
    A2cConfig,
    AwacConfig,
    BcConfig,
    CqlConfig,
    CrossQConfig,
    DqnConfig,
    IqlConfig,
    IqnConfig,
    PpoConfig,
    QrDqnConfig,
    RecurrentPpoConfig,
    SacConfig,
    Td3BcConfig,
    Td3Config,
    TqcConfig,
)
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer

GOLDEN = Path(__file__).parent / "golden"
LEGACY = Path(__file__).parent / "golden_0.2.0"
"""The critic agents' 0.2.0 checkpoints, in the former critic layout (a ``ModuleList`` of MLPs): they load
into the stacked `CriticEnsemble`."""
OPT_CALLS = 5
TINY = (8, 8)

DISCRETE = Spaces(obs_shape=(4,), n_actions=2)
BOX = Spaces(obs_shape=(4,), action_low=[-2.0, -1.0], action_high=[2.0, 3.0])
STATS = (np.array([0.1, -0.2, 0.3, 0.0], np.float32), np.array([1.5, 0.5, 2.0, 1.0], np.float32))


def _box_act(rng: np.random.Generator) -> npt.NDArray[Any]:
    return rng.uniform([-2.0, -1.0], [2.0, 3.0]).astype(np.float32)


CASES: dict[str, tuple[Any, Spaces, str]] = {
    "dqn": (DqnConfig(hidden=TINY, target_update_interval=2, max_grad_norm=10.0), DISCRETE, "replay"),
    "dqn_double_dueling_per": (
        DqnConfig(hidden=TINY, double_dqn=True, dueling=True, target_update_interval=2),
        DISCRETE,
        "per",
    ),
    "iqn": (
        IqnConfig(hidden=TINY, embed_dim=8, head_hidden=(8,), target_update_interval=2),
        DISCRETE,
        "replay",
    ),
    # Cases added after 0.2.0 are written by the code that added them (QR-DQN: after 0.2.0, unreleased).
    "qrdqn": (QrDqnConfig(n_quantiles=5, hidden=TINY, target_update_interval=2), DISCRETE, "per"),
    "sac": (SacConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16), BOX, "replay"),
    # SAC with gSDE: after 0.2.0, unreleased. New weights every 2nd act; its log-stds end on both sides of 0.
    "sac_gsde": (
        SacConfig(
            actor_hidden=TINY,
            critic_hidden=TINY,
            batch_size=16,
            gsde=True,
            sde_sample_freq=2,
            use_expln=True,
            log_std_init=-0.001,
        ),
        BOX,
        "replay",
    ),
    "tqc": (
        TqcConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16, n_critics=3, n_quantiles=4),
        BOX,
        "per",
    ),
    "crossq": (  # renormalising from the 3rd update (SBX waits 100,000), the policy on the 3rd
        CrossQConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16, renorm_warmup_steps=2),
        BOX,
        "per",
    ),
    "td3": (Td3Config(actor_hidden=TINY, critic_hidden=TINY, batch_size=16), BOX, "replay"),
    "td3_ou": (
        Td3Config(actor_hidden=TINY, critic_hidden=TINY, batch_size=16, exploration="ou"),
        BOX,
        "replay",
    ),
    "ppo_discrete": (PpoConfig(hidden=TINY, batch_size=16, n_epochs=2), DISCRETE, "rollout"),
    "ppo_gsde_normalized": (
        PpoConfig(
            hidden=TINY,
            batch_size=16,
            gsde=True,
            sde_sample_freq=2,
            normalize_obs=True,
            normalize_reward=True,
        ),
        BOX,
        "rollout",
    ),
    # Recurrent PPO: after 0.2.0, unreleased. Acting one lane, then three: each call's lanes start afresh.
    "recurrent_ppo_discrete": (
        RecurrentPpoConfig(hidden=TINY, lstm_hidden=8, batch_size=6, n_epochs=2),
        DISCRETE,
        "rollout",
    ),
    "recurrent_ppo_gsde_normalized": (
        RecurrentPpoConfig(
            hidden=TINY,
            lstm_hidden=8,
            lstm_layers=2,
            batch_size=16,
            gsde=True,
            sde_sample_freq=2,
            normalize_obs=True,
            normalize_reward=True,
        ),
        BOX,
        "rollout",
    ),
    # A2C: after 0.2.0, unreleased.
    "a2c_discrete": (A2cConfig(hidden=TINY, ent_coef=0.01), DISCRETE, "rollout"),
    "a2c_gsde_normalized": (
        A2cConfig(
            hidden=TINY,
            gsde=True,
            log_std_init=-2.0,
            ortho_init=False,
            normalize_obs=True,
            normalize_reward=True,
            lr_schedule="linear",
            schedule_env_steps=1_000,
        ),
        BOX,
        "rollout",
    ),
    "bc": (BcConfig(hidden=TINY, batch_size=16), BOX, "offline"),
    "bc_discrete": (BcConfig(hidden=TINY, batch_size=16), DISCRETE, "offline"),
    "bc_gaussian": (
        BcConfig(hidden=TINY, batch_size=16, policy="gaussian", normalize_obs=True),
        BOX,
        "offline",
    ),
    "iql": (
        IqlConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16, normalize_obs=True),
        BOX,
        "offline",
    ),
    "awac": (AwacConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16), BOX, "offline"),
    "cql": (
        CqlConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16, target_action_gap=1.0),
        BOX,
        "offline",
    ),
    "td3bc": (Td3BcConfig(actor_hidden=TINY, critic_hidden=TINY, batch_size=16), BOX, "offline"),
}


def _build(name: str) -> Any:
    config, spaces, kind = CASES[name]
    if kind == "offline":
        return config.build(spaces, 3, STATS)
    return config.build(spaces, 3)


def _rollout(spaces: Spaces, seed: int) -> Any:
    """One rollout of 8 steps of 4 sub-envs, random-walk observations, an episode end now and then."""
    rng = np.random.default_rng(seed)
    buffer = RolloutBufferConfig(n_steps=8, num_envs=4).build(0)
    obs = [rng.normal(size=4).astype(np.float32) for _ in range(4)]
    for _ in range(8):
        for i in range(4):
            nxt = (obs[i] + rng.normal(size=4)).astype(np.float32)
            end = rng.random()
            act = _box_act(rng) if not spaces.discrete else np.array(rng.integers(2))
            ended = {"is_terminated": end < 0.05, "is_truncated": 0.05 <= end < 0.1}
            reward = float(rng.normal())
            buffer.push(Transition(obs=obs[i], act=act, next_obs=nxt, reward=reward, **ended, discount=0.9))
            obs[i] = rng.normal(size=4).astype(np.float32) if end < 0.1 else nxt
    return buffer


def _buffer(name: str, call: int) -> Any:
    _, spaces, kind = CASES[name]
    if kind == "rollout":
        return _rollout(spaces, call)
    act: Callable[[np.random.Generator], npt.NDArray[Any]] = (
        _box_act if not spaces.discrete else (lambda rng: np.array(rng.integers(2)))
    )
    per = PerConfig() if kind == "per" else None
    return random_buffer(64, act, per=per, seed=call)


def _acts(agent: Any, rng: np.random.Generator) -> list[npt.NDArray[Any]]:
    obs = [rng.normal(size=4).astype(np.float32) for _ in range(5)]
    return [*(agent.sample(o) for o in obs[:2]), *agent.sample_batch(obs[2:])]


def run_case(name: str) -> tuple[Any, npt.NDArray[Any]]:
    """The agent after acting (train mode), ``OPT_CALLS`` opt calls, and acting again (train, then eval
    mode); and every action it took, stacked."""
    torch.set_num_threads(1)
    agent = _build(name)
    rng = np.random.default_rng(11)
    acts = _acts(agent, rng)
    for call in range(OPT_CALLS):
        agent.opt(_buffer(name, call))
    acts += _acts(agent, rng)
    agent.eval()
    acts += _acts(agent, rng)
    return agent, np.stack([np.asarray(a, dtype=np.float64).reshape(-1) for a in acts])


def write(root: Path = GOLDEN) -> None:
    """Writes every case's checkpoint and actions under ``root``."""
    for name in CASES:
        agent, acts = run_case(name)
        out = root / name
        out.mkdir(parents=True, exist_ok=True)
        agent.save_params(out)
        np.save(out / "actions.npy", acts)
        print(f"wrote {out}")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else GOLDEN)
