"""A reader of border_py's exported policies in plain numpy, for the ``mlp`` kind (a pixel policy's
convolutions included): the reference loader of docs/export-format.md. It imports nothing of border_py;
copy it into a project that serves a policy."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

Array = npt.NDArray[Any]


def load_policy(path: str | Path) -> Callable[[Array | dict[str, Array]], Array]:
    """The greedy policy exported to the directory ``path``: ``act(obs)`` for one observation
    ``(obs_dim,)`` (pixels: ``(channels, height, width)``; with ``obs_parts``, a dict of them too) or a
    batch of them gives int64 actions (discrete) or float32 ones (box)."""
    spec = json.loads((Path(path) / "policy.json").read_text())
    net, action = spec.get("network", {}), spec.get("action", {})
    if spec.get("format") != "border_py.policy" or spec.get("version") not in (1, 2, 3, 4, 6):
        raise ValueError(f"{path}: not a border_py policy of version 1 to 4 or 6")
    if "inputs" in net:  # a dict observation's image CNNs (version 5 and later): not this loader's
        raise ValueError(f"{path}: not an mlp policy this loader knows (network.inputs)")
    squash = action.get("squash", "none")  # version 1 wrote none for a discrete action
    if (
        spec["kind"] != "mlp"
        or net["activation"] not in ("relu", "tanh")
        or squash not in ("none", "tanh", "clip")
    ):
        raise ValueError(f"{path}: not an mlp policy with an activation and a squash this loader knows")
    with np.load(Path(path) / "weights.npz", allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    layers = [(arrays[w], arrays[b]) for w, b in net["layers"]]  # w: (in, out), b: (out,)
    norm, conv = net.get("obs_norm"), net.get("conv")
    low, high = (np.asarray(action.get(k, np.nan), np.float32) for k in ("low", "high"))
    parts = spec.get("obs_parts")

    def act(obs: Array | dict[str, Array]) -> Array:
        if parts is not None and isinstance(obs, dict):  # the parts in order, each flattened: the vector
            first = np.asarray(obs[parts[0]["key"]])
            lead = first.shape[: first.ndim - len(parts[0]["shape"])]  # () or a batch's (n,)
            obs = np.concatenate([np.reshape(obs[p["key"]], (*lead, -1)) for p in parts], axis=-1)
        x: Array = np.asarray(obs, np.float32)
        mask = x[..., slice(*action["mask"])] > 0.5 if "mask" in action else None  # as given: 1 = legal
        if conv is not None:  # pixels: convolutions without padding, ReLU after each, then flattened
            x = x / np.float32(conv["divide_by"])
            for layer in conv["layers"]:
                w, s = arrays[layer["weight"]], layer["stride"]  # w: (out, in, kh, kw)
                win = sliding_window_view(x, w.shape[2:], axis=(-2, -1))[..., ::s, ::s, :, :]
                x = np.einsum("...chwij,ocij->...ohw", win, w, optimize=True)
                x = np.maximum(x + arrays[layer["bias"]][:, None, None], np.float32(0))
            x = x.reshape(*x.shape[:-3], -1)  # (channel, row, column) order, as torch's nn.Flatten
        if norm is not None:
            x = (x - arrays[norm["mean"]]) / arrays[norm["std"]]
            if norm["clip"] is not None:
                x = np.clip(x, -norm["clip"], norm["clip"])
        for i, (w, b) in enumerate(layers):
            x = x @ w + b
            if i < len(layers) - 1:  # the activation follows every layer but the last
                x = np.tanh(x) if net["activation"] == "tanh" else np.maximum(x, np.float32(0))
        if action["type"] == "discrete":
            if mask is not None and not mask.any(axis=-1).all():
                raise ValueError("an observation's action_mask allows no action")
            x = np.argmax(x if mask is None else np.where(mask, x, -np.inf), axis=-1)  # int64
        elif squash == "tanh":  # clipped too: float32 rounding can pass a bound
            if "clip_mean" in action:  # version 6: SAC's gSDE mean, held before the tanh
                x = np.clip(x, -action["clip_mean"], action["clip_mean"])
            x = np.clip((high + low) / 2 + (high - low) / 2 * np.tanh(x), low, high)
        elif squash == "clip":
            x = np.clip(x, low, high)
        return x

    return act
