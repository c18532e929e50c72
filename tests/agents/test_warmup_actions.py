"""The SAC family's ``warmup_actions``: ``uniform`` acts as SB3 does before ``learning_starts`` (uniform in
the box, from the agent's generator) until the first opt step, on the learner and on an actor's copy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py.agents import CrossQConfig, SacConfig, TqcConfig
from border_py.agents.sac.soft import SoftActorCritic
from border_py.base import Spaces
from border_py.config import ConfigError, from_dict
from tests.agents.random_buffer import random_buffer

LOW, HIGH = np.array([-2.0, 0.0, -1.0], np.float32), np.array([2.0, 1.0, 3.0], np.float32)
SPACES = Spaces(obs_shape=(4,), action_low=LOW, action_high=HIGH)
SMALL: dict[str, Any] = {"actor_hidden": (16,), "critic_hidden": (16,), "batch_size": 16}
CONFIGS: dict[str, Callable[..., Any]] = {
    "sac": lambda **kw: SacConfig(**SMALL, **kw),
    "sac_gsde": lambda **kw: SacConfig(**SMALL, gsde=True, **kw),
    "tqc": lambda **kw: TqcConfig(**SMALL, n_quantiles=5, top_quantiles_to_drop_per_net=1, **kw),
    "crossq": lambda **kw: CrossQConfig(**SMALL, **kw),
}


def _agent(kind: str, warmup: str, seed: int = 3) -> SoftActorCritic[Any, Any]:
    agent: SoftActorCritic[Any, Any] = CONFIGS[kind](warmup_actions=warmup).build(SPACES, seed)
    return agent


def _buffer() -> Any:
    return random_buffer(64, sample_act=lambda rng: rng.uniform(LOW, HIGH).astype(np.float32))


def _uniform_stream(seed: int, n: int) -> npt.NDArray[np.float32]:
    """The first ``n`` uniform actions the agent's generator (seeded ``seed``) gives."""
    generator = torch.Generator().manual_seed(seed)
    draws = np.stack([torch.rand((1, 3), generator=generator).numpy()[0] for _ in range(n)])
    out: npt.NDArray[np.float32] = LOW + (HIGH - LOW) * draws
    return out


def _not_uniform(agent: SoftActorCritic[Any, Any], obs: np.ndarray) -> bool:
    """Whether the agent's next train-mode act is not the uniform draw its generator would give."""
    generator = torch.Generator().set_state(agent.generator.get_state())
    uniform = LOW + (HIGH - LOW) * torch.rand((1, 3), generator=generator).numpy()[0]
    act = agent.sample(obs)
    return bool(((act >= LOW) & (act <= HIGH)).all()) and not np.allclose(act, uniform, atol=1e-3)


@pytest.mark.parametrize("kind", CONFIGS)
def test_uniform_warmup_acts_from_the_generator_until_the_first_opt_step(kind: str) -> None:
    agent = _agent(kind, "uniform")
    obs = np.zeros(4, np.float32)
    before = np.stack([agent.sample(obs) for _ in range(5)])
    np.testing.assert_allclose(before, _uniform_stream(3, 5), rtol=0, atol=1e-6)
    agent.eval()
    greedy = agent.sample(obs)  # eval mode is the policy's mode, warm-up or not
    assert np.array_equal(greedy, agent.sample(obs))
    agent.train()
    assert agent.opt(_buffer()) is not None
    assert _not_uniform(agent, obs)


@pytest.mark.parametrize("kind", CONFIGS)
def test_the_default_warmup_samples_the_policy(kind: str) -> None:
    agent = _agent(kind, "policy")
    obs = np.zeros(4, np.float32)
    acts = np.stack([agent.sample(obs) for _ in range(5)])
    assert ((acts >= LOW) & (acts <= HIGH)).all()
    assert not np.allclose(acts, _uniform_stream(3, 5), atol=1e-3)


def test_an_actor_copy_warms_up_until_the_learners_first_opt_step_reaches_it() -> None:
    learner, actor = _agent("sac", "uniform", seed=0), _agent("sac", "uniform", seed=7)
    obs = np.zeros(4, np.float32)
    actor.load_acting_state(learner.acting_state(), env_steps=0)
    np.testing.assert_allclose(actor.sample(obs)[None], _uniform_stream(7, 1), rtol=0, atol=1e-6)
    learner.opt(_buffer())
    state = learner.acting_state()
    assert state["opt_steps"] == 1
    actor.load_acting_state(state, env_steps=100)
    learner.eval()
    actor.eval()
    np.testing.assert_array_equal(actor.sample(obs), learner.sample(obs))  # the same policy now
    actor.train()
    assert _not_uniform(actor, obs)


def test_a_bad_warmup_actions_is_refused_naming_the_field() -> None:
    with pytest.raises(ConfigError, match=r"random not in .*policy.*uniform.* @ agent\.warmup_actions"):
        from_dict(SacConfig, {"warmup_actions": "random"}, source="agent")
