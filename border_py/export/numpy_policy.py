"""``NumpyPolicy``: a trained policy run with numpy alone (no torch, no border_py agent).

An exported policy is a directory of two files:

- ``policy.json``: what the policy is (``kind``: ``mlp``, ``lstm`` for a policy with memory, ``dqn`` for a
  dueling DQN, ``iqn``, and ``sac`` in version 1 files), its observation's size and shape, its action
  space and the names of its weight arrays, layer by layer (a pixel policy's convolutions first,
  ``network.conv``);
- ``weights.npz``: the arrays (float32; each linear layer's weight stored as ``(in, out)``), read with
  ``allow_pickle=False``, so a hostile file cannot run code.

Every field, the arithmetic of each kind and a plain-numpy reference loader: docs/export-format.md.

The forward passes below repeat the agents' greedy (eval-mode) action in numpy: ``mlp``,
``head(mlp(normalise(obs)))``, for every agent whose greedy policy is one MLP (PPO, A2C, SAC, TQC, CrossQ,
TD3, a plain DQN, QR-DQN, BC, IQL, AWAC, CQL, TD3+BC; `border_py.agents.greedy`), a dueling DQN's
Q-values, IQN's mean quantile at its deterministic fractions (and SAC's squashed mean, as version 1 wrote
it); a pixel policy's convolutions (`border_py.export.numpy_conv`), or a dict observation's images through
theirs (`border_py.export.numpy_inputs`), run first, for any kind. ``lstm`` is the
``mlp`` kind with an LSTM (`border_py.export.numpy_lstm`) between the normalisation (or the front) and the
layers: recurrent PPO's, which acts with a memory the caller carries (``act_with_memory``). Nothing in this
module imports torch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from border_py.export.action_mask import greedy_actions, read_action_mask
from border_py.export.dict_obs import Obs, flat_obs, read_obs_parts
from border_py.export.numpy_conv import read_conv
from border_py.export.numpy_inputs import read_inputs
from border_py.export.numpy_lstm import NumpyLstm, read_lstm
from border_py.export.policy_files import (
    CLIP_MEAN_VERSION,
    obs_shape,
    read_clip_mean,
    read_layers,
    read_policy_files,
)

# F32, Mlp, the format's constants and PolicyFileError were defined here first: importing them from here
# still works.
from border_py.export.policy_files import FORMAT as FORMAT
from border_py.export.policy_files import READS as READS
from border_py.export.policy_files import SPEC_FILE as SPEC_FILE
from border_py.export.policy_files import WEIGHTS_FILE as WEIGHTS_FILE
from border_py.export.policy_files import PolicyFileError as PolicyFileError
from border_py.export.policy_files import field as _field
from border_py.numpy_mlp import F32 as F32
from border_py.numpy_mlp import Mlp as Mlp
from border_py.numpy_mlp import relu

VERSION = CLIP_MEAN_VERSION
"""The newest version written: 6 added ``action.clip_mean`` (SAC's gSDE mean held before the tanh), 5
``network.inputs`` (a dict observation's images; written only with them), 4 ``action.mask`` (a file with
neither is written as 3, with a mask alone as 4), 3 a pixel policy's convolutions (``network.conv``,
``obs_shape``), 2 the ``clip`` squash (a box within its bounds)."""
TORCH_RTOL = 1e-4
"""How far an exported policy's outputs (values, or a continuous action) may be from the agent's in torch,
relative to the larger of 1 and the observation's largest absolute output. Both compute in float32 but
sum in different orders, so the difference grows with the outputs' size (a trained Q-network's tens to
hundreds) and with cancellation inside the sums: a fixed absolute bound does not hold. Discrete actions
are the same unless two values lie within this of each other."""

Kind: TypeAlias = Literal["dqn", "iqn", "sac", "mlp", "lstm"]
KINDS: tuple[Kind, ...] = ("dqn", "iqn", "sac", "mlp", "lstm")


class NumpyPolicy:
    """A policy exported by `border_py.export.export_numpy`, run with numpy.

    ``act(obs)`` takes one observation of ``obs_shape`` or a batch ``(n, *obs_shape)`` (``(obs_dim,)`` for
    a vector; a pixel policy's ``(channels, height, width)``: pixel values 0-255, uint8 as an env gives
    them or any numeric dtype), or, exported with ``obs_parts``, the dict observation (each part of its
    shape, or ``(n, *shape)``); it returns the greedy action: an int64 of shape ``()`` / ``(n,)`` for a
    discrete policy, float32 ``(act_dim,)`` / ``(n, act_dim)`` within the bounds for a continuous one.
    ``values(obs)`` gives the per-action values a discrete policy maximises, ``(n, n_actions)`` (``act``
    takes the best each observation's ``action_mask`` allows). Outputs match torch's within `TORCH_RTOL`.

    A policy with memory (the ``lstm`` kind, ``recurrent``: recurrent PPO's) acts with
    ``act_with_memory(obs, memory)``, which also returns the memory to pass with the next observations;
    ``initial_memory(lanes)`` is the memory of episodes starting. Its ``act`` and ``values`` are refused.

    numpy's BLAS runs a large enough matmul (IQN's fractions against its hidden layer, at batch 1) on
    several threads, which wait for one another when other processes hold the cores: serve a policy
    beside an env or a training run with one BLAS thread (``OPENBLAS_NUM_THREADS=1`` in the environment
    before Python starts, or ``threadpoolctl.threadpool_limits(1)``). This class leaves the process-wide
    setting alone.

    Examples:
        >>> import tempfile
        >>> from border_py.agents import DqnConfig
        >>> from border_py.base import Spaces
        >>> from border_py.export import export_numpy
        >>> with tempfile.TemporaryDirectory() as d:
        ...     _ = export_numpy(DqnConfig(hidden=(8,)).build(Spaces(obs_shape=(4,), n_actions=2), 0), d)
        ...     policy = NumpyPolicy.load(d)
        >>> policy.kind, policy.act(np.zeros(4, np.float32)).shape
        ('mlp', ())
    """

    def __init__(self, spec: Mapping[str, Any], weights: Mapping[str, F32], source: str = "<memory>") -> None:
        self.source = source
        self.spec = dict(spec)
        self.kind: Kind = _field(spec, "kind", str, source)
        if self.kind not in KINDS:
            raise PolicyFileError(f"{source}: 'kind' must be one of {list(KINDS)}, got {self.kind!r}")
        self.obs_dim = _field(spec, "obs_dim", int, source)
        action = _field(spec, "action", dict, source)
        self.discrete = action.get("type") == "discrete"
        net = _field(spec, "network", dict, source)
        self._weights = weights
        self.lstm: NumpyLstm | None = None
        """The ``lstm`` kind's LSTM, between the normalisation and the layers (``None``: no memory)."""
        self.obs_shape = obs_shape(spec, self.obs_dim, net.get("conv") is not None, source)
        """One observation's shape: ``(obs_dim,)``, or a pixel policy's ``(channels, height, width)``."""
        self.conv = read_conv(net.get("conv"), self._array, self.obs_shape, self.kind, source)
        try:  # a dict observation's parts, side by side in the flat one; None: an array observation
            self.obs_parts = read_obs_parts(spec.get("obs_parts"), self.obs_dim, self.conv is not None)
            self.action_mask = read_action_mask(spec, self.obs_dim, self.conv is not None)
            """Where each observation's legal-action flags lie, ``(start, stop)``; None: every action."""
        except ValueError as exc:
            raise PolicyFileError(f"{source}: {exc}") from exc
        self.inputs = read_inputs(spec, net.get("inputs"), self._array, self.obs_parts, source)
        """A dict observation's images through their CNNs, before the layers (None: no such front)."""
        front = self.conv or self.inputs
        self.in_dim = self.obs_dim if front is None else front.out_features
        """What the first layer takes: the observation, or the convolutions' or the images' features (or
        the LSTM's ``h``, set when the ``lstm`` kind is built)."""
        self._build(net, action, source)

    # -- construction -------------------------------------------------------------------------------------

    def _mlp(self, net: Mapping[str, Any], name: str, relu_out: bool, source: str) -> Mlp:
        return Mlp(read_layers(net, name, self._array, source), relu_out)

    def _array(self, name: object, ndim: int, source: str) -> F32:
        if not isinstance(name, str) or name not in self._weights:
            raise PolicyFileError(f"{source}: array {name!r} is not in {WEIGHTS_FILE}")
        a = self._weights[name]
        if a.ndim != ndim or a.dtype != np.float32 or not np.isfinite(a).all():
            raise PolicyFileError(
                f"{source}: array {name!r} must be finite float32 with {ndim} dimension(s), "
                f"got {a.dtype} {a.shape}"
            )
        return a

    def _check_inputs(self, first: int, source: str) -> None:
        if first != self.in_dim:
            takes = f"obs_dim is {self.obs_dim}"
            if self.lstm is not None:
                takes = f"the LSTM gives {self.in_dim}"
            elif self.conv is not None:
                takes = f"the convolutions give {self.in_dim}"
            elif self.inputs is not None:
                takes = f"network.inputs give {self.in_dim} features"
            raise PolicyFileError(f"{source}: the network takes {first} inputs, {takes}")

    def _build_mlp(self, net: Mapping[str, Any], action: Mapping[str, Any], source: str) -> None:
        activation = net.get("activation")
        if activation not in ("relu", "tanh"):
            raise PolicyFileError(f"{source}: network.activation must be relu or tanh, got {activation!r}")
        self.mlp = self._mlp(net, "layers", relu_out=False, source=source)
        self.mlp.activation = np.tanh if activation == "tanh" else relu
        norm = net.get("obs_norm")
        self.obs_norm: tuple[F32, F32, float | None] | None = None
        if norm is not None:
            if self.conv is not None or self.inputs is not None:
                front = "network.conv" if self.conv is not None else "network.inputs"
                raise PolicyFileError(f"{source}: network.obs_norm must be null with {front}")
            if not isinstance(norm, Mapping) or not isinstance(norm.get("clip"), int | float | type(None)):
                raise PolicyFileError(f"{source}: network.obs_norm must be {{mean, std, clip}} or null")
            mean, std = self._array(norm.get("mean"), 1, source), self._array(norm.get("std"), 1, source)
            if mean.shape != (self.obs_dim,) or std.shape != (self.obs_dim,) or not (std > 0).all():
                raise PolicyFileError(f"{source}: obs_norm needs {self.obs_dim} means and positive stds")
            self.obs_norm = (mean, std, None if norm["clip"] is None else float(norm["clip"]))
        self.squash = action.get("squash", "none")
        if self.squash not in ("none", "tanh", "clip"):
            raise PolicyFileError(f"{source}: action.squash must be none, tanh or clip, got {self.squash!r}")
        if action.get("type") not in ("discrete", "box"):
            raise PolicyFileError(
                f"{source}: action.type must be discrete or box, got {action.get('type')!r}"
            )
        if self.discrete:
            self.n_actions = _field(action, "n", int, source)
        elif self.squash != "none":
            self._bounds(action, source)
            if self.low.shape != (self.mlp.out_dim,):
                raise PolicyFileError(
                    f"{source}: the network gives {self.mlp.out_dim} actions, the bounds have {self.low.size}"
                )
        self._check_inputs(self.mlp.in_dim, source)
        if self.discrete and self.mlp.out_dim != self.n_actions:
            raise PolicyFileError(
                f"{source}: the network gives {self.mlp.out_dim} values, n={self.n_actions}"
            )

    def _bounds(self, action: Mapping[str, Any], source: str) -> None:
        self.low = np.asarray(_field(action, "low", list, source), dtype=np.float32)
        self.high = np.asarray(_field(action, "high", list, source), dtype=np.float32)
        if self.low.shape != self.high.shape or not (self.high > self.low).all():
            raise PolicyFileError(f"{source}: action bounds must be of one shape with high > low")
        self.scale = (self.high - self.low) / np.float32(2.0)
        self.bias = (self.high + self.low) / np.float32(2.0)

    def _build(self, net: Mapping[str, Any], action: Mapping[str, Any], source: str) -> None:
        self.clip_mean = read_clip_mean(self.spec, self.kind, source)
        if self.kind == "lstm":  # after the front, where there is one: it takes its features
            self.lstm = read_lstm(net.get("lstm"), self._array, self.in_dim, source)
            self.in_dim = self.lstm.hidden
        if self.kind in ("mlp", "lstm"):
            self._build_mlp(net, action, source)
            return
        if self.kind in ("dqn", "iqn"):
            if not self.discrete:
                raise PolicyFileError(f"{source}: a {self.kind} policy needs a discrete action")
            self.n_actions = _field(action, "n", int, source)
        else:
            if action.get("type") != "box":
                raise PolicyFileError(f"{source}: a sac policy needs a box action")
            self._bounds(action, source)
        if self.kind == "dqn":
            self.dueling = bool(net.get("dueling", False))
            self.trunk = self._mlp(net, "trunk", relu_out=self.dueling, source=source)
            if self.dueling:
                self.value = self._mlp(net, "value", False, source)
                self.advantage = self._mlp(net, "advantage", False, source)
                out = self.advantage.out_dim
            else:
                out = self.trunk.out_dim
            first = self.trunk.in_dim
        elif self.kind == "iqn":
            self.psi = self._mlp(net, "psi", relu_out=True, source=source)
            self.phi = self._mlp(net, "phi", relu_out=True, source=source)
            self.head = self._mlp(net, "head", relu_out=False, source=source)
            taus = np.asarray(_field(net, "taus", list, source), dtype=np.float32)
            if taus.ndim != 1 or not taus.size or not ((taus > 0) & (taus < 1)).all():
                raise PolicyFileError(f"{source}: network.taus must be fractions in (0, 1)")
            n_cos = self.phi.in_dim
            pi_i = np.float32(math.pi) * np.arange(n_cos, dtype=np.float32)
            # The fractions are fixed, so their embedding is too: computed once here, not per call.
            self.tau_embedding = self.phi(np.cos(taus[:, None] * pi_i).astype(np.float32))  # (n_taus, embed)
            out = self.head.out_dim
            first = self.psi.in_dim
        else:
            self.actor = self._mlp(net, "actor", relu_out=False, source=source)
            out = self.actor.out_dim // 2
            first = self.actor.in_dim
            if out != self.low.shape[0]:
                raise PolicyFileError(
                    f"{source}: the actor gives {out} actions, the bounds have {self.low.shape[0]}"
                )
        self._check_inputs(first, source)
        if self.discrete and out != self.n_actions:
            raise PolicyFileError(
                f"{source}: the network gives {out} values, the action has n={self.n_actions}"
            )

    # -- loading ------------------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path | str) -> NumpyPolicy:
        """Reads ``path/policy.json`` and ``path/weights.npz``.

        Raises:
            PolicyFileError: a file is missing, is not what its name says, or does not describe a policy.
        """
        spec, weights, source = read_policy_files(Path(path))
        return cls(spec, weights, source=source)

    # -- acting -------------------------------------------------------------------------------------------

    def _batch(self, obs: Obs) -> tuple[F32, F32, bool]:
        """``obs`` as a batch of what the first layer takes (a pixel policy: its convolutions' features; a
        dict observation with images: their features beside the other parts), the batch as given (whose
        flags a mask reads), and whether it was one observation."""
        if isinstance(obs, Mapping):
            obs = flat_obs(self.obs_parts, obs)
        # Pixels stay in their dtype (uint8) until the convolutions divide them: no float copy before.
        x = np.asarray(obs) if self.conv is not None else np.asarray(obs, dtype=np.float32)
        single = x.shape == self.obs_shape
        if single:
            x = x[None]
        if x.shape[1:] != self.obs_shape:
            shape = ", ".join(map(str, self.obs_shape))
            raise ValueError(
                f"observations must be {self.obs_shape} or (n, {shape}), got shape {np.shape(obs)}"
            )
        front = self.conv or self.inputs
        return (x if front is None else front(x)), x, single

    def values(self, obs: Obs) -> F32:
        """The per-action values ``(n, n_actions)`` the greedy action maximises (DQN: Q-values; IQN: the
        mean quantile at the exported fractions; a policy network's logits), raw: the mask not applied."""
        self._refuse_memory("values()")
        if not self.discrete:
            raise TypeError(f"a {self.kind} policy has no per-action values; use act()")
        features, _, _ = self._batch(obs)
        return self._values(features)

    def _normalised(self, x: F32) -> F32:
        if self.obs_norm is not None:
            mean, std, clip = self.obs_norm
            x = (x - mean) / std
            if clip is not None:
                x = np.clip(x, -clip, clip)
        return x

    def _values(self, x: F32) -> F32:
        if self.kind == "mlp":
            return self.mlp(self._normalised(x))  # a policy network's logits
        if self.kind == "dqn":
            h = self.trunk(x)
            if not self.dueling:
                return h
            adv = self.advantage(h)
            q: F32 = self.value(h) + adv - adv.mean(axis=1, keepdims=True)
            return q
        features = self.psi(x)[:, None, :] * self.tau_embedding[None]  # (n, n_taus, embed)
        z = self.head(features)  # (n, n_taus, n_actions): one product of n_taus rows per observation
        return np.asarray(z.mean(axis=1), dtype=np.float32)

    def _mlp_action(self, out: F32, x: F32) -> npt.NDArray[Any]:
        """The ``mlp`` and ``lstm`` kinds' action of the layers' output ``out`` (``x``: the observations as
        given, whose flags a mask reads)."""
        if self.discrete:
            return greedy_actions(out, x, self.action_mask)
        if self.clip_mean is not None:
            out = np.clip(out, -self.clip_mean, self.clip_mean)
        if self.squash == "tanh":
            out = self.bias + self.scale * np.tanh(out)  # clipped below: rounding can pass a bound
        return out if self.squash == "none" else np.clip(out, self.low, self.high)

    def act(self, obs: Obs) -> npt.NDArray[Any]:
        """The greedy action of one observation or of each in a batch (ValueError: a mask allows none;
        TypeError: the policy has memory, `act_with_memory`)."""
        self._refuse_memory("act()")
        features, x, single = self._batch(obs)
        if self.kind == "mlp":
            act = self._mlp_action(self.mlp(self._normalised(features)), x)
        elif self.discrete:
            act = greedy_actions(self._values(features), x, self.action_mask)
        else:
            mean = self.actor(features)[:, : self.low.shape[0]]
            act = np.clip(self.bias + self.scale * np.tanh(mean), self.low, self.high)
        return act[0] if single else act

    # -- acting with memory (the lstm kind) ---------------------------------------------------------------

    @property
    def recurrent(self) -> bool:
        """Whether the policy has memory (the ``lstm`` kind): it acts through `act_with_memory`."""
        return self.lstm is not None

    def _refuse_memory(self, call: str) -> None:
        if self.lstm is not None:
            raise TypeError(
                f"an lstm policy acts on the episode so far: {call} has no memory to act with; call "
                "act_with_memory(obs, memory), memory = initial_memory(lanes) at the episodes' start"
            )

    def initial_memory(self, lanes: int = 1) -> F32:
        """The memory of ``lanes`` episodes at their start, zeros ``(2, layers, lanes, hidden)`` (each
        layer's ``h``, then its ``c``): a lane's memory is set back to it (``memory[:, :, lane] = 0``) when
        its episode ends.

        Raises:
            TypeError: the policy has no memory (use `act`).
        """
        if self.lstm is None:
            raise TypeError(f"a {self.kind} policy has no memory; use act()")
        return self.lstm.zeros(lanes)

    def act_with_memory(self, obs: Obs, memory: npt.ArrayLike) -> tuple[npt.NDArray[Any], F32]:
        """The greedy action of one observation or of each in a batch (one lane each), with the lanes'
        ``memory`` ``(2, layers, lanes, hidden)`` (one lane for one observation), and the memory after it,
        to pass with the lanes' next observations (``memory`` itself is left as it was).

        Raises:
            TypeError: the policy has no memory (use `act`).
            ValueError: ``obs`` as `act`, or a memory of another shape (the expected one named).
        """
        if self.lstm is None:
            raise TypeError(f"a {self.kind} policy has no memory; use act()")
        features, x, single = self._batch(obs)
        h, after = self.lstm.step(self._normalised(features), self.lstm.checked(memory, len(x)))
        act = self._mlp_action(self.mlp(h), x)
        return (act[0] if single else act), after
