"""Hand-written minimal updates in plain PyTorch: DQN, SAC, TD3 and CQL as a careful user would write them in
one function each, with the same sizes, losses, optimisers and target updates as border_py's agents, on
transitions held as tensors (sampling is one ``randint`` and an index). They are the arithmetic limit the
``minimal_update`` group holds each agent's ``opt`` to.

Each factory returns ``run(n)``, which performs ``n`` updates.
"""

from __future__ import annotations

import itertools
import math

import torch
from torch import nn

from benchmarks.common import Workload

Data = dict[str, torch.Tensor]
"""Columns ``obs``, ``act``, ``reward``, ``next_obs``, ``done`` of a filled buffer."""


def mlp(in_dim: int, out_dim: int, hidden: tuple[int, ...]) -> nn.Sequential:
    """Linear layers with ReLU between them."""
    sizes = (in_dim, *hidden)
    layers: list[nn.Module] = []
    for i, o in itertools.pairwise(sizes):
        layers += [nn.Linear(i, o), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], out_dim))


def _batch(data: Data, size: int) -> Data:
    idx = torch.randint(data["obs"].shape[0], (size,))
    return {k: v[idx] for k, v in data.items()}


def _critics(obs_dim: int, act_dim: int, hidden: tuple[int, ...]) -> tuple[nn.ModuleList, nn.ModuleList]:
    critics = nn.ModuleList(mlp(obs_dim + act_dim, 1, hidden) for _ in range(2))
    targets = nn.ModuleList(mlp(obs_dim + act_dim, 1, hidden) for _ in range(2))
    targets.load_state_dict(critics.state_dict())
    targets.requires_grad_(False)
    return critics, targets


def _q(critics: nn.ModuleList, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
    x = torch.cat([obs, act], dim=-1)
    return torch.stack([q(x).squeeze(-1) for q in critics])


def _adam(params: object, lr: float) -> torch.optim.Adam:
    # Fused, as border_py's agents use: the limit is the arithmetic, not the default optimiser's ten small
    # kernels per parameter.
    return torch.optim.Adam(params, lr=lr, fused=True)  # type: ignore[arg-type]


def _step(optimizer: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def dqn(data: Data, hidden: tuple[int, ...], batch: int, n_actions: int, max_grad_norm: float) -> Workload:
    """DQN: Q(s, a), the target network's max at s', Huber loss, gradient clipping, Adam 1e-3, a hard target
    copy every 1000 updates."""
    net = mlp(data["obs"].shape[1], n_actions, hidden)
    target = mlp(data["obs"].shape[1], n_actions, hidden).requires_grad_(False)
    target.load_state_dict(net.state_dict())
    optimizer = _adam(net.parameters(), 1e-3)
    params: list[torch.Tensor] = list(net.parameters())
    steps = [0]

    def run(n: int) -> None:
        for _ in range(n):
            b = _batch(data, batch)
            with torch.no_grad():
                y = b["reward"] + 0.99 * (1.0 - b["done"]) * target(b["next_obs"]).max(dim=1).values
            q = net(b["obs"]).gather(1, b["act"].long().unsqueeze(1)).squeeze(1)
            optimizer.zero_grad(set_to_none=True)
            nn.functional.smooth_l1_loss(q, y).backward()
            nn.utils.clip_grad_norm_(params, max_grad_norm)
            optimizer.step()
            steps[0] += 1
            if steps[0] % 1000 == 0:
                target.load_state_dict(net.state_dict())

    return run


def _squashed(actor: nn.Module, obs: torch.Tensor, n: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """A reparameterised tanh-Gaussian action in [-1, 1] and its log-density (``n`` of them per state,
    ``(batch, n, act_dim)``, from one forward pass, when given)."""
    mean, log_std = actor(obs).chunk(2, dim=-1)
    log_std = log_std.clamp(-20.0, 2.0)
    if n is not None:
        mean, log_std = mean.unsqueeze(1), log_std.unsqueeze(1)
        u = mean + log_std.exp() * torch.randn(mean.shape[0], n, mean.shape[-1])
    else:
        u = mean + log_std.exp() * torch.randn_like(mean)
    log_prob = -0.5 * ((u - mean) / log_std.exp()) ** 2 - log_std - 0.5 * math.log(2 * math.pi)
    log_prob = log_prob - 2.0 * (math.log(2.0) - u - nn.functional.softplus(-2.0 * u))
    return torch.tanh(u), log_prob.sum(-1)


def sac(data: Data, hidden: tuple[int, ...], batch: int) -> Workload:
    """SAC: twin critics to the soft target from the target critics, the policy through the critics' minimum,
    automatic alpha, Polyak 0.005, Adam 3e-4 everywhere (actions in [-1, 1])."""
    obs_dim, act_dim = data["obs"].shape[1], data["act"].shape[1]
    actor = mlp(obs_dim, 2 * act_dim, hidden)
    critics, targets = _critics(obs_dim, act_dim, hidden)
    log_alpha = torch.zeros((), requires_grad=True)
    opt_a, opt_c = _adam(actor.parameters(), 3e-4), _adam(critics.parameters(), 3e-4)
    opt_alpha = _adam([log_alpha], 3e-4)
    online: list[torch.Tensor] = list(critics.parameters())
    tgt: list[torch.Tensor] = list(targets.parameters())

    def run(n: int) -> None:
        for _ in range(n):
            b = _batch(data, batch)
            alpha = log_alpha.detach().exp()
            with torch.no_grad():
                a2, logp2 = _squashed(actor, b["next_obs"])
                q2 = _q(targets, b["next_obs"], a2).min(dim=0).values - alpha * logp2
                y = b["reward"] + 0.99 * (1.0 - b["done"]) * q2
            _step(opt_c, (0.5 * (_q(critics, b["obs"], b["act"]) - y) ** 2).mean(dim=1).sum())
            a, logp = _squashed(actor, b["obs"])
            critics.requires_grad_(False)
            _step(opt_a, (alpha * logp - _q(critics, b["obs"], a).min(dim=0).values).mean())
            critics.requires_grad_(True)
            _step(opt_alpha, -(log_alpha * (logp.detach() - act_dim)).mean())
            torch._foreach_lerp_(tgt, online, 0.005)

    return run


def td3(data: Data, hidden: tuple[int, ...], batch: int) -> Workload:
    """TD3: twin critics to the smoothed target (noise 0.2 clipped at 0.5), the policy through the first
    critic every second update, then Polyak 0.005 for the target policy and critics, Adam 1e-3."""
    obs_dim, act_dim = data["obs"].shape[1], data["act"].shape[1]
    actor = nn.Sequential(mlp(obs_dim, act_dim, hidden), nn.Tanh())
    actor_tgt = nn.Sequential(mlp(obs_dim, act_dim, hidden), nn.Tanh()).requires_grad_(False)
    actor_tgt.load_state_dict(actor.state_dict())
    critics, targets = _critics(obs_dim, act_dim, hidden)
    opt_a, opt_c = _adam(actor.parameters(), 1e-3), _adam(critics.parameters(), 1e-3)
    online: list[torch.Tensor] = [*critics.parameters(), *actor.parameters()]
    tgt: list[torch.Tensor] = [*targets.parameters(), *actor_tgt.parameters()]
    steps = [0]

    def run(n: int) -> None:
        for _ in range(n):
            b = _batch(data, batch)
            with torch.no_grad():
                noise = (0.2 * torch.randn_like(b["act"])).clamp(-0.5, 0.5)
                a2 = (actor_tgt(b["next_obs"]) + noise).clamp(-1.0, 1.0)
                y = b["reward"] + 0.99 * (1.0 - b["done"]) * _q(targets, b["next_obs"], a2).min(dim=0).values
            _step(opt_c, ((_q(critics, b["obs"], b["act"]) - y) ** 2).mean(dim=1).sum())
            steps[0] += 1
            if steps[0] % 2 == 0:
                critics.requires_grad_(False)
                x = torch.cat([b["obs"], actor(b["obs"])], dim=-1)
                _step(opt_a, -critics[0](x).mean())
                critics.requires_grad_(True)
                torch._foreach_lerp_(tgt, online, 0.005)

    return run


def cql(data: Data, hidden: tuple[int, ...], batch: int, n_actions: int = 10) -> Workload:
    """CQL(H) on SAC with CORL's choices: the deterministic backup, 10 actions per source (uniform, the
    policy at s, at s') importance-weighted in one batched critic pass, weight 10, Adam 3e-5 (policy and
    alpha) and 3e-4 (critics), Polyak 0.005."""
    obs_dim, act_dim = data["obs"].shape[1], data["act"].shape[1]
    actor = mlp(obs_dim, 2 * act_dim, hidden)
    critics, targets = _critics(obs_dim, act_dim, hidden)
    log_alpha = torch.zeros((), requires_grad=True)
    opt_a, opt_c = _adam(actor.parameters(), 3e-5), _adam(critics.parameters(), 3e-4)
    opt_alpha = _adam([log_alpha], 3e-5)
    online: list[torch.Tensor] = list(critics.parameters())
    tgt: list[torch.Tensor] = list(targets.parameters())
    uniform_log_density = -act_dim * math.log(2.0)

    def run(k: int) -> None:
        for _ in range(k):
            b = _batch(data, batch)
            obs = b["obs"]
            with torch.no_grad():
                a2, logp2 = _squashed(actor, b["next_obs"], 1 + n_actions)
                y = (
                    b["reward"]
                    + 0.99 * (1.0 - b["done"]) * _q(targets, b["next_obs"], a2[:, 0]).min(0).values
                )
            a, logp = _squashed(actor, obs, 1 + n_actions)
            rand = 2.0 * torch.rand(batch, n_actions, act_dim) - 1.0
            acts = torch.cat([b["act"].unsqueeze(1), rand, a[:, 1:].detach(), a2[:, 1:]], dim=1)
            dens = torch.cat(
                [torch.full((batch, n_actions), uniform_log_density), logp[:, 1:].detach(), logp2[:, 1:]], 1
            )
            q = _q(critics, obs.unsqueeze(1).expand(-1, acts.shape[1], -1), acts)
            gap = (torch.logsumexp(q[..., 1:] - dens, dim=-1) - q[..., 0]).mean(dim=1)
            _step(opt_c, ((q[..., 0] - y) ** 2).mean(dim=1).sum() + 10.0 * gap.sum())
            critics.requires_grad_(False)
            pi_loss = (log_alpha.detach().exp() * logp[:, 0] - _q(critics, obs, a[:, 0]).min(0).values).mean()
            _step(opt_a, pi_loss)
            critics.requires_grad_(True)
            _step(opt_alpha, -(log_alpha * (logp[:, 0].detach() - act_dim)).mean())
            torch._foreach_lerp_(tgt, online, 0.005)

    return run
