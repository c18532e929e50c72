"""The stacked critic ensemble: the same critics as the former list of MLPs (same draws from a seed, same
outputs), and a former-layout state and optimiser state carried on where they stopped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch
from torch import nn

from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.toolkit import mlp
from tests.agents.golden import LEGACY, _build


def _former(n: int, hidden: tuple[int, ...], seed: int, out: int = 1) -> nn.ModuleList:
    torch.manual_seed(seed)
    return nn.ModuleList(mlp(6, out, hidden) for _ in range(n))


def _stacked(n: int, hidden: tuple[int, ...], seed: int, out: int = 1) -> CriticEnsemble:
    torch.manual_seed(seed)
    return CriticEnsemble(4, 2, hidden, n, out)


def test_the_members_are_drawn_as_the_former_list_of_mlps_and_compute_the_same() -> None:
    former, stacked = _former(3, (8, 8), 0), _stacked(3, (8, 8), 0)
    obs, act = torch.randn(5, 4), torch.randn(5, 2)
    x = torch.cat([obs, act], dim=-1)
    expected = torch.stack([q(x).squeeze(-1) for q in former])
    torch.testing.assert_close(stacked(obs, act), expected)
    torch.testing.assert_close(stacked.first(obs, act), expected[0])
    for i, q in enumerate(former):
        for a, b in zip(stacked.member(i).parameters(), q.parameters(), strict=True):
            assert torch.equal(a, b)


def test_leading_dimensions_and_several_outputs() -> None:
    stacked = _stacked(5, (8,), 1, out=3)
    obs, act = torch.randn(2, 7, 4), torch.randn(2, 7, 2)
    out = stacked(obs, act)
    assert out.shape == (5, 2, 7, 3)
    torch.testing.assert_close(out[4, 1, 6], stacked.member(4)(torch.cat([obs[1, 6], act[1, 6]])))
    assert stacked.first(obs, act).shape == (2, 7, 3)


def _adam_steps(loss_of: object, steps: int, opt: torch.optim.Adam) -> None:
    for _ in range(steps):
        opt.zero_grad()
        loss_of().backward()  # type: ignore[operator]
        opt.step()


def test_a_former_state_and_adam_state_carry_on_as_the_former_critics_would() -> None:
    n, hidden = 2, (8, 8)
    former, stacked = _former(n, hidden, 2), _stacked(n, hidden, 3)  # different draws: loading must set all
    obs, act = torch.randn(32, 4), torch.randn(32, 2)
    target = torch.randn(n, 32)
    x = torch.cat([obs, act], dim=-1)
    former_opt = torch.optim.Adam(former.parameters(), lr=1e-2)

    def former_loss() -> torch.Tensor:
        return ((torch.stack([q(x).squeeze(-1) for q in former]) - target) ** 2).mean()

    _adam_steps(former_loss, 3, former_opt)
    saved = {f"qs.{k}": v for k, v in former.state_dict().items()}
    stacked.load_state_dict(stacked.upgrade_state_dict(saved))
    stacked_opt = torch.optim.Adam(stacked.parameters(), lr=1e-2)
    stacked_opt.load_state_dict(stacked.upgrade_optimizer_state(former_opt.state_dict()))
    # One more step on each side from the same gradients (the former's, stacked as the weights are): Adam
    # is elementwise, so the stacked critics land exactly where the former ones do.
    former_opt.zero_grad()
    former_loss().backward()
    grads = {f"qs.{k}": v.grad for k, v in former.named_parameters()}
    for (_, p), g in zip(stacked.named_parameters(), stacked.upgrade_state_dict(grads).values(), strict=True):
        p.grad = g.clone()
    former_opt.step()
    stacked_opt.step()
    for i, q in enumerate(former):
        for a, b in zip(stacked.member(i).parameters(), q.parameters(), strict=True):
            assert torch.equal(a, b)


def test_a_state_of_its_own_layout_is_left_as_it_is() -> None:
    stacked = _stacked(2, (8,), 0)
    state = stacked.state_dict()
    assert stacked.upgrade_state_dict(state) is state
    opt = torch.optim.Adam(stacked.parameters())
    assert stacked.upgrade_optimizer_state(opt.state_dict()) == opt.state_dict()


def test_a_former_file_missing_a_critic_is_refused_naming_the_file(tmp_path: Path) -> None:
    shutil.copytree(LEGACY / "sac", tmp_path / "sac")
    critic = torch.load(tmp_path / "sac" / "critic.pt", weights_only=True)
    torch.save({k: v for k, v in critic.items() if not k.startswith("qs.1.")}, tmp_path / "sac" / "critic.pt")
    agent = _build("sac")
    before = [p.clone() for p in agent.parts.critic.params]
    with pytest.raises(ValueError, match=r"critic\.pt does not match this SAC's network"):
        agent.load_params(tmp_path / "sac")
    assert all(torch.equal(a, b) for a, b in zip(before, agent.parts.critic.params, strict=True))
