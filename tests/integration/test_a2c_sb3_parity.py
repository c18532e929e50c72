"""One A2C update of the zoo's LunarLander-v3 entry is SB3's A2C update.

RL Zoo's A2C LunarLander-v3 entry trailed SB3 on 3 seeds (docs/results.md). This pins that the update itself
is not the cause: from the same weights (SB3's, copied into border_py's network) and the same rollout (8
sub-envs x 5 steps, SB3's actions, episodes forced to terminate and to truncate inside it, so the rollout
holds both bootstraps), border_py's returns, advantages, learning rate and every parameter after the update
equal SB3's. SB3 steps its own ``DummyVecEnv``; border_py steps identically seeded sub-envs through its own
``GymVecEnv``, step processors, ``RolloutBuffer`` and ``SyncSampler``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import pytest
import torch

from border_py.agents import A2c
from border_py.agents.on_policy.model import TwinMlp
from border_py.envs.gym_vector import GymVecEnv
from border_py.run.experiment import Experiment
from border_py.run.zoo import experiment
from border_py.trainer.sampler import SyncSampler
from tests.scripted_actions import ScriptedActions

sb3 = pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (the dev extra)")

# rl_zoo3 2.9.2 hyperparams/a2c.yml LunarLander-v3: lin_0.00083 over 2e5 env steps, SB3's defaults elsewhere
N_ENVS, N_STEPS, GAMMA, LR, TOTAL = 8, 5, 0.995, 0.00083, 200_000
# Per sub-env: (terminate at this step of each episode, max_episode_steps; None: LunarLander's 1000). Sub-envs
# 0 and 6 run past the rollout's end, 1, 5 (every step) and 7 terminate, 2 and 3 truncate (bootstrapped from
# the value of the pre-reset observation), 4 terminates and truncates at once (no bootstrap).
FORCED = [(None, None), (2, None), (None, 4), (None, 2), (3, 3), (1, None), (None, None), (4, 1000)]
TOL = 1e-5


class _TerminateAt(gym.Wrapper[Any, Any, Any, Any]):
    """Terminates each episode at its ``k``-th step, with the reward the env gave."""

    def __init__(self, env: gym.Env[Any, Any], k: int) -> None:
        super().__init__(env)
        self.k, self.t = k, 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        self.t = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.t += 1
        return obs, reward, terminated or self.t == self.k, truncated, info


def _make(term: int | None, limit: int | None) -> gym.Env[Any, Any]:
    env = gym.make("LunarLander-v3", max_episode_steps=limit)  # None: the env's own 1000
    return env if term is None else _TerminateAt(env, term)


FACTORIES = [lambda term=term, limit=limit: _make(term, limit) for term, limit in FORCED]


def _pairs(policy: Any, agent: A2c) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """``(name, border_py's tensor, SB3's)`` for every parameter, SB3's in border_py's layout (TwinMlp keeps
    the policy and value layers stacked, weights as ``(in, out)``)."""
    net, extractor = agent.parts.model.net, policy.mlp_extractor
    assert isinstance(net.body, TwinMlp)
    pairs = []
    for j, name in enumerate(("policy_net", "value_net")):  # TwinMlp's index 0 is the policy, 1 the value
        layers = [m for m in getattr(extractor, name) if isinstance(m, torch.nn.Linear)]
        for i, layer in enumerate(layers):
            pairs += [(f"mlp_extractor.{name}[{i}].weight", net.body.weights[i][j], layer.weight.T)]
            pairs += [(f"mlp_extractor.{name}[{i}].bias", net.body.biases[i][j, 0], layer.bias)]
    for head in ("action_net", "value_net"):
        ours, theirs = getattr(net, head), getattr(policy, head)
        pairs += [(f"{head}.weight", ours.weight, theirs.weight), (f"{head}.bias", ours.bias, theirs.bias)]
    n = sum(t.numel() for _, t, _ in pairs)
    assert n == sum(p.numel() for p in net.parameters()) == sum(p.numel() for p in policy.parameters())
    return pairs


def _sb3_after_one_rollout() -> Any:
    """SB3's A2C with RL Zoo's settings, its first rollout collected as ``learn()`` collects it."""
    env = sb3.common.vec_env.DummyVecEnv(FACTORIES)  # sub-env i reset with seed i, as GymVecEnv(seed=0)
    model = sb3.A2C(
        "MlpPolicy", env, learning_rate=lambda progress: progress * LR, n_steps=N_STEPS, gamma=GAMMA,
        ent_coef=1e-5, seed=0, device="cpu",
    )  # fmt: skip
    _, callback = model._setup_learn(TOTAL, None)
    model.collect_rollouts(env, callback, model.rollout_buffer, N_STEPS)
    model._update_current_progress_remaining(model.num_timesteps, TOTAL)
    return model


def test_one_a2c_update_on_a_rollout_with_forced_episode_ends_equals_sb3s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = _sb3_after_one_rollout()
    rollout = theirs.rollout_buffer
    obs, returns, advantages = rollout.observations.copy(), rollout.returns.copy(), rollout.advantages.copy()

    # border_py: the zoo's entry from SB3's weights, stepping the same sub-envs with SB3's actions
    exp = experiment("a2c", "LunarLander-v3", str(tmp_path / "run"))
    assert isinstance(exp, Experiment)
    vec = gym.vector.SyncVectorEnv(FACTORIES, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    env = GymVecEnv(vec, seed=0, name="LunarLander-v3")
    agent = exp.agent.build(env.spaces, 0)
    assert isinstance(agent, A2c)
    agent.train()
    with torch.no_grad():
        for _, ours, sb3_param in _pairs(theirs.policy, agent):
            ours.copy_(sb3_param)
    sampler = SyncSampler(env, [exp.step_processor.build() for _ in range(N_ENVS)])
    buffer = exp.replay_buffer.build(0)
    replay = ScriptedActions(rollout.actions[..., 0].astype(np.int64))  # SB3's, step by step
    for _ in range(N_STEPS):
        sampler.sample_and_push(replay, buffer)
    seen: dict[str, torch.Tensor] = {}
    update = agent._update

    def capture(data: dict[str, torch.Tensor]) -> dict[str, float]:
        seen.update({k: v.clone() for k, v in data.items()})
        return update(data)

    monkeypatch.setattr(agent, "_update", capture)

    record = agent.opt(buffer)
    theirs.train()

    assert record is not None
    shape = (N_STEPS, N_ENVS)
    np.testing.assert_array_equal(seen["obs"].reshape(*shape, -1).numpy(), obs)  # the same rollout
    np.testing.assert_allclose(seen["returns"].reshape(shape).numpy(), returns, rtol=0, atol=TOL)
    np.testing.assert_allclose(seen["advantage"].reshape(shape).numpy(), advantages, rtol=0, atol=TOL)
    sb3_lr = theirs.policy.optimizer.param_groups[0]["lr"]
    assert record["train/lr"] == pytest.approx(sb3_lr, rel=1e-12)
    assert sb3_lr == pytest.approx(LR * (1 - N_ENVS * N_STEPS / TOTAL), rel=1e-12)
    for name, ours, sb3_param in _pairs(theirs.policy, agent):
        diff = float((ours - sb3_param).detach().abs().max())
        assert diff <= TOL, f"{name} differs from SB3's by {diff:.3g} after one update"
