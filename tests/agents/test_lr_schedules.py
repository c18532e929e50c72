"""Linear learning-rate schedules of the off-policy agents, one test per config base (`DeepQConfig`,
`SoftActorCriticConfig`, `Td3Config`): opt step k (from 0) trains at ``lr * (1 - min(k, H) / H)``, every
optimiser whose rate the config sets follows it, and a linear schedule without its horizon is refused.
Exact resume with a schedule on: tests/functional/test_resume.py."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py.agents import (
    CrossQConfig,
    Dqn,
    DqnConfig,
    IqnConfig,
    QrDqnConfig,
    SacConfig,
    Td3,
    Td3Config,
    TqcConfig,
)
from border_py.agents.sac.soft import SoftActorCritic
from border_py.base import Spaces
from tests.agents.random_buffer import random_buffer

BOX = Spaces(obs_shape=(4,), action_low=[-1.0], action_high=[1.0])


def _in_box(rng: np.random.Generator) -> npt.NDArray[Any]:
    return rng.uniform(-1.0, 1.0, size=1).astype(np.float32)


_box_buffer = partial(random_buffer, 32, sample_act=_in_box)


def _lrs(optimizers: list[torch.optim.Optimizer]) -> list[float]:
    return [float(o.param_groups[0]["lr"]) for o in optimizers]


def test_dqn_family_lr_falls_linearly_with_the_opt_steps_then_stays_at_zero() -> None:
    config = DqnConfig(hidden=(8,), batch_size=8, lr=8e-4, lr_schedule="linear", schedule_opt_steps=4)
    agent = Dqn(config, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    optimizer, buffer = agent.parts.net.optimizer, random_buffer(32)
    seen = []
    for _ in range(5):
        assert agent.opt(buffer) is not None
        seen.append(_lrs([optimizer])[0])
    # Opt steps 0..4 of a 4-step horizon: 8e-4 times 1, 3/4, 1/2, 1/4, then 0.
    assert seen == pytest.approx([8e-4, 6e-4, 4e-4, 2e-4, 0.0], rel=1e-12, abs=0.0)
    before = [p.detach().clone() for p in agent.parts.net.params]
    agent.opt(buffer)  # past the horizon: a rate of 0 leaves the network as it is
    assert all(torch.equal(a, b) for a, b in zip(before, agent.parts.net.params, strict=True))
    for cls in (DqnConfig, QrDqnConfig, IqnConfig):
        with pytest.raises(ValueError, match="a linear lr_schedule needs schedule_opt_steps"):
            cls(lr_schedule="linear")


def test_constant_rates_are_left_as_configured() -> None:
    agent = Dqn(DqnConfig(hidden=(8,), batch_size=8, lr=8e-4), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    buffer = random_buffer(32)
    for _ in range(3):
        agent.opt(buffer)
    assert agent.lr_horizon is None
    assert _lrs([agent.parts.net.optimizer]) == [8e-4]


@pytest.mark.parametrize("make", [SacConfig, partial(TqcConfig, n_quantiles=5), CrossQConfig])
def test_sac_family_moves_the_policy_critic_and_alpha_rates_by_one_schedule(make: Any) -> None:
    config = make(
        actor_hidden=(8,),
        critic_hidden=(8,),
        batch_size=8,
        actor_lr=3e-4,
        critic_lr=6e-4,
        alpha_lr=9e-4,
        n_updates_per_opt=2,
        lr_schedule="linear",
        schedule_opt_steps=3,
    )
    agent: SoftActorCritic[Any, Any] = config.build(BOX, seed=0)
    parts, buffer = agent.parts, _box_buffer()
    optimizers = [parts.actor.optimizer, parts.critic.optimizer, parts.log_alpha.optimizer]
    agent.opt(buffer)
    assert _lrs(optimizers) == [3e-4, 6e-4, 9e-4]  # opt step 0: the configured rates
    agent.opt(buffer)  # opt step 1 (two updates, one rate): 2/3 of each
    assert _lrs(optimizers) == pytest.approx([2e-4, 4e-4, 6e-4], rel=1e-12)
    with pytest.raises(ValueError, match="a linear lr_schedule needs schedule_opt_steps"):
        make(lr_schedule="linear")


def test_td3_moves_the_policy_and_critic_rates_by_one_schedule() -> None:
    config = Td3Config(
        actor_hidden=(8,),
        critic_hidden=(8,),
        batch_size=8,
        actor_lr=1e-3,
        critic_lr=2e-3,
        lr_schedule="linear",
        schedule_opt_steps=5,
    )
    agent = Td3(config, BOX, seed=0)
    optimizers, buffer = [agent.parts.actor.optimizer, agent.parts.critic.optimizer], _box_buffer()
    for _ in range(3):
        agent.opt(buffer)
    assert agent.opt_steps == 3
    assert _lrs(optimizers) == pytest.approx([6e-4, 1.2e-3], rel=1e-12)  # opt step 2: 1 - 2/5 of each
    with pytest.raises(ValueError, match="a linear lr_schedule needs schedule_opt_steps"):
        Td3Config.ddpg(lr_schedule="linear")


def test_an_agent_of_ones_own_that_names_no_optimiser_refuses_the_schedule_rather_than_ignore_it() -> None:
    class Unscheduled(Td3):
        def _scheduled_lrs(self) -> tuple[()]:
            return ()

    config = Td3Config(actor_hidden=(8,), critic_hidden=(8,), batch_size=8, lr_schedule="linear",
                       schedule_opt_steps=5)  # fmt: skip
    with pytest.raises(NotImplementedError, match="Unscheduled: its config asks for a linear lr_schedule"):
        Unscheduled(config, BOX, seed=0).opt(_box_buffer())
