"""``CriticEnsemble``: ``n`` critics as one module, each layer's weights stacked so that every critic runs in
one batched matmul per layer (``baddbmm``), and the mapping of the former per-critic checkpoints onto it.

Until 0.2.0 the ensemble was a ``ModuleList`` of ``n`` MLPs (keys ``qs.<i>.<j>.weight``, ``(out, in)``),
run one after the other; a checkpoint or optimiser state of that layout is read into the stacked one
(`upgrade_state_dict`, `upgrade_optimizer_state`), so models saved before still load and resume.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from border_py.agents.multi_input import Encoder

__all__ = ["CriticEnsemble", "StackedLinear"]

_LEGACY_KEY = re.compile(r"qs\.(\d+)\.(\d+)\.(weight|bias)")


class StackedLinear(nn.Module):
    """``n`` linear layers side by side: ``x (n, batch, in) -> (n, batch, out)``, ``x[i] @ weight[i] +
    bias[i]``, in one ``baddbmm``. ``weight`` is ``(n, in, out)`` (already transposed), ``bias``
    ``(n, 1, out)``.

    Examples:
        >>> layer = StackedLinear([nn.Linear(3, 2), nn.Linear(3, 2)])
        >>> layer(torch.zeros(2, 5, 3)).shape
        torch.Size([2, 5, 2])
    """

    def __init__(self, layers: Sequence[nn.Linear]) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.stack([layer.weight.detach().T for layer in layers]).contiguous())
        self.bias = nn.Parameter(torch.stack([layer.bias.detach() for layer in layers]).unsqueeze(1))

    def forward(self, x: torch.Tensor, members: slice = slice(None)) -> torch.Tensor:
        """The layers ``members`` (all by default), each on its own slice of ``x`` ``(m, batch, in)``, or
        all on the one slice of ``x`` ``(1, batch, in)``."""
        weight = self.weight[members]
        return torch.baddbmm(self.bias[members], x.expand(len(weight), *x.shape[1:]), weight)


MemberNorm = Callable[[int, int], nn.Module]
"""A normalisation between an ensemble's layers, made from ``(n, width)``: a module that takes ``(n,
batch, width)`` (or ``(1, batch, width)``: one input every member normalises) to ``(n, batch, width)``,
with statistics and parameters per member (`border_py.agents.batch_renorm.BatchRenorm` of shape ``(n, 1,
width)``)."""


class CriticEnsemble(nn.Module):
    """``n`` independent Q-networks ``Q_i(s, a)``, each a ReLU MLP over ``concat(obs, act)`` to ``out``
    values (1: a Q-value; TQC: quantiles), as one module of stacked layers (SAC, TD3, TD3+BC, AWAC, IQL and
    CQL take their minimum).

    The members are drawn as ``n`` MLPs one after the other (the same weights, from the same seed, as the
    former ``ModuleList``), then stacked. With ``norm`` (CrossQ's batch renormalisation), each member
    normalises its input and each hidden layer's activations (SBX's placement: after the activation,
    before the next layer), with statistics of its own; the draws of the linear layers are the same. With
    an ``encoder`` (a dict observation with images), the members take its features of the observation.

    Examples:
        >>> CriticEnsemble(3, 2, (8,), n=2)(torch.zeros(5, 3), torch.zeros(5, 2)).shape
        torch.Size([2, 5])
        >>> CriticEnsemble(3, 2, (8,), n=5, out=25)(torch.zeros(4, 3), torch.zeros(4, 2)).shape
        torch.Size([5, 4, 25])
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        hidden: Sequence[int],
        n: int,
        out: int = 1,
        norm: MemberNorm | None = None,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__()
        # A dict observation with images: one encoder the members share (SB3's critics share theirs).
        self.encoder = encoder
        obs_dim = obs_dim if encoder is None else encoder.out_features
        if obs_dim + act_dim < 1 or out < 1 or n < 1 or any(h < 1 for h in hidden):
            given = f"in {obs_dim + act_dim}, hidden {tuple(hidden)}, out {out}, n {n}"
            raise ValueError(f"critic sizes must be >= 1, got {given}")
        sizes = [obs_dim + act_dim, *hidden, out]
        # Drawn member by member, layer by layer: the draws of n separate `toolkit.mlp`s.
        linears = [[nn.Linear(a, b) for a, b in itertools.pairwise(sizes)] for _ in range(n)]
        self.n, self.out = n, out
        self.layers = nn.ModuleList(
            StackedLinear([lin[k] for lin in linears]) for k in range(len(hidden) + 1)
        )
        # Empty without `norm`: no parameter, no state dict key, the plain critics as they were.
        self.norms = nn.ModuleList([] if norm is None else [norm(n, width) for width in sizes[:-1]])

    def _run(self, obs: torch.Tensor, act: torch.Tensor, members: slice) -> torch.Tensor:
        """The critics ``members`` on ``concat(obs, act)`` of any leading dimensions: ``(m, *batch)``, or
        ``(m, *batch, out)`` for ``out > 1``."""
        if self.encoder is not None:
            obs = self.encoder(obs)
        # Broadcast after the encoder: CQL's one state for its sampled actions goes through the CNN once.
        x = torch.cat([obs.expand(*act.shape[:-1], -1), act], dim=-1)
        lead = x.shape[:-1]
        h = x.reshape(1, -1, x.shape[-1])  # one row block, shared by every member (a broadcast batch)
        norms = list(self.norms)
        if norms:
            if members != slice(None):
                raise ValueError("critics with normalisations run all their members together")
            h = norms[0](h)
        last = len(self.layers) - 1
        for k, layer in enumerate(self.layers):
            h = layer(h, members)
            if k < last:
                h = torch.relu(h)
                if norms:
                    h = norms[k + 1](h)
        return h.reshape(len(h), *lead) if self.out == 1 else h.reshape(len(h), *lead, self.out)

    def first(self, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """The first critic's output alone, ``(*batch,)`` (what TD3's policy climbs)."""
        return self._run(obs, act, slice(0, 1))[0]

    def forward(self, obs: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """Returns every critic's output, ``(n, *batch)`` (``(n, *batch, out)`` for ``out > 1``): the
        actions may have any leading dimensions (CQL's sampled actions: two), the observations the same or
        ones that broadcast to them (CQL's: a state of size 1 along the sampled actions)."""
        return self._run(obs, act, slice(None))

    def member(self, i: int) -> nn.Sequential:
        """A copy of critic ``i`` as a plain MLP (``Linear`` layers of ``(out, in)`` weights), for code
        that wants one critic on its own (a comparison with another library's critic).

        Raises:
            ValueError: the critics have normalisations (statistics of all members together).
        """
        if len(self.norms) or self.encoder is not None:
            raise ValueError("a member of critics with normalisations or an encoder is not a plain MLP")
        last = len(self.layers) - 1
        modules: list[nn.Module] = []
        for k, layer in enumerate(self.layers):
            assert isinstance(layer, StackedLinear)
            n_in, n_out = layer.weight.shape[1:]
            linear = nn.Linear(n_in, n_out, device=layer.weight.device)
            with torch.no_grad():
                linear.weight.copy_(layer.weight[i].T)
                linear.bias.copy_(layer.bias[i, 0])
            modules += [linear, nn.ReLU()] if k < last else [linear]
        return nn.Sequential(*modules)

    def upgrade_state_dict(self, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` in this module's layout: a state dict of the former ``ModuleList`` (``qs.<i>.<j>.*``,
        a ``weight`` and a ``bias`` per layer of each of this module's ``n`` critics) stacked per layer; any
        other returned as it is (the caller checks keys and shapes, and names the file)."""
        legacy = None if len(self.norms) else _legacy_layers(state, self.n)
        if legacy is None:
            return state
        upgraded: dict[str, Any] = {}
        for k, j in enumerate(legacy):
            weights = [state[f"qs.{i}.{j}.weight"] for i in range(self.n)]
            biases = [state[f"qs.{i}.{j}.bias"] for i in range(self.n)]
            upgraded[f"layers.{k}.weight"] = _stack_moment(weights, weight=True)
            upgraded[f"layers.{k}.bias"] = _stack_moment(biases, weight=False)
        return upgraded

    def upgrade_optimizer_state(self, state: dict[str, Any]) -> dict[str, Any]:
        """An optimiser's state dict over the former ``ModuleList``'s parameters (``n`` members x
        ``(weight, bias)`` per layer, in that order) mapped onto the stacked ones (``(weight, bias)`` per
        layer): each per-parameter tensor (Adam's moments) stacked as the weights are, the step kept. A
        state whose parameter count is already this module's is returned as it is, and so is any state of
        critics with normalisations (the former layout had none; their parameter count may match it)."""
        n_layers = len(self.layers)
        ids = [i for group in state.get("param_groups", []) for i in group.get("params", [])]
        per_param = state.get("state", {})
        legacy_count = len(ids) == 2 * n_layers * self.n and not len(self.norms)
        if not legacy_count or not _legacy_moments(per_param, ids[0], self.n):
            return state
        new_state: dict[int, dict[str, Any]] = {}
        for k in range(n_layers):
            for part in (0, 1):  # weight, bias
                members = [per_param.get(ids[i * 2 * n_layers + 2 * k + part], {}) for i in range(self.n)]
                names = set.intersection(*(set(m) for m in members)) if all(members) else set()
                if names:  # a parameter with no step taken yet has no state
                    new_state[2 * k + part] = {
                        name: _stack_moment([m[name] for m in members], part == 0) for name in sorted(names)
                    }
        groups = [{**state["param_groups"][0], "params": list(range(2 * n_layers))}]
        return {"state": new_state, "param_groups": groups}


def _stack_moment(values: list[Any], weight: bool) -> Any:
    """Per-member optimiser tensors stacked as `StackedLinear` stacks the parameters; a scalar (Adam's
    ``step``) is the same for every member and kept once."""
    if not isinstance(values[0], torch.Tensor):
        return values[0]
    if values[0].dim() == 0:
        # A copy: Adam counts its step in place, and a tensor shared by two parameters would count twice.
        return values[0].clone()
    if weight:
        return torch.stack([v.T for v in values]).contiguous()
    return torch.stack(values).unsqueeze(1).contiguous()


def _legacy_moments(per_param: dict[int, dict[str, Any]], first: int, n: int) -> bool:
    """Whether an optimiser state over ``2 x layers x n`` parameters is the former layout's: with ``n > 1``
    the count says so; with one critic the counts agree, and its first weight's moments tell (``(out,
    in)`` there, ``(1, in, out)`` here)."""
    if n > 1:
        return True
    moments = [v for v in per_param.get(first, {}).values() if isinstance(v, torch.Tensor) and v.dim() > 0]
    return bool(moments) and moments[0].dim() == 2


def _legacy_layers(state: dict[str, Any], n: int) -> list[int] | None:
    """The sequence indices of the former layout's linear layers (``[0, 2, 4]``), or ``None`` when
    ``state`` is not a whole state dict of that layout for ``n`` critics of tensors."""
    found = [_LEGACY_KEY.fullmatch(key) for key in state]
    if not found or not all(found) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        return None
    layers = sorted({int(m[2]) for m in found if m is not None})
    expected = {f"qs.{i}.{j}.{p}" for i in range(n) for j in layers for p in ("weight", "bias")}
    return layers if set(state) == expected else None
