"""A dict observation's images in numpy alone: what `border_py.export.NumpyPolicy` runs before a policy's
layers when ``policy.json`` has ``network.inputs`` (a multi-input encoder's, docs/export-format.md), and
that field read (`read_inputs`). Nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from border_py.base.obs_parts import ObsPart, ObsParts
from border_py.export.numpy_conv import NumpyConv, read_conv
from border_py.export.policy_files import PolicyFileError, require_version
from border_py.numpy_mlp import F32, Mlp

INPUTS_VERSION = 5
"""The ``policy.json`` version that added ``network.inputs``, written only with it: a version 4 reader then
refuses the file instead of feeding the raw pixels to the layers."""


class NumpyImage:
    """One image part's features: its flat pixels in the part's shape (transposed to channels first where
    ``channels_last``), the convolutions (which divide by 255), then a linear layer and a ReLU."""

    def __init__(self, part: ObsPart, channels_last: bool, conv: NumpyConv, linear: Mlp) -> None:
        self.shape, self.channels_last, self.conv, self.linear = part.shape, channels_last, conv, linear

    def __call__(self, flat: F32) -> F32:
        """``(n, size)`` pixel values to ``(n, features)``."""
        image = flat.reshape(len(flat), *self.shape)
        if self.channels_last:
            image = image.transpose(0, 3, 1, 2)
        return self.linear(self.conv(image))


class NumpyInputs:
    """Flat dict observations ``(n, parts.dim)`` to features ``(n, out_features)``: each part in order, an
    image through its `NumpyImage`, another part as it is, side by side (as
    `border_py.agents.multi_input.MultiInputEncoder`). Batch-invariant, as `NumpyConv` and `Mlp` are."""

    def __init__(self, parts: ObsParts, images: Mapping[str, NumpyImage]) -> None:
        self.parts, self.images = parts, dict(images)
        self.out_features = sum(self.images[p.key].linear.out_dim if p.image else p.size for p in parts.parts)
        """The length of the features."""

    def __call__(self, x: F32) -> F32:
        pieces = []
        for p in self.parts.parts:
            where = x[:, self.parts.span(p.key)]
            pieces.append(self.images[p.key](where) if p.image else where)
        return np.ascontiguousarray(np.concatenate(pieces, axis=1), dtype=np.float32)


def _image(
    entry: object, i: int, part: ObsPart, array: Callable[[object, int, str], F32], source: str
) -> NumpyImage:
    """``network.inputs[i]``, the entry of image part ``part``."""
    where = f"network.inputs[{i}]"
    if not isinstance(entry, Mapping) or not isinstance(entry.get("channels_last"), bool):
        raise PolicyFileError(f"{source}: {where} must be {{key, channels_last: bool, conv, linear}}")
    side = part.shape
    chw = (side[2], side[0], side[1]) if entry["channels_last"] else side
    conv = read_conv(entry.get("conv"), array, chw, "mlp", source, f"{where}.conv")
    if conv is None:
        raise PolicyFileError(f"{source}: {where}.conv must be {{layers, divide_by}}")
    names = entry.get("linear")
    if not (isinstance(names, list) and len(names) == 2):
        raise PolicyFileError(f"{source}: {where}.linear must be [weight, bias] names, got {names!r:.60}")
    weight, bias = array(names[0], 2, source), array(names[1], 1, source)
    if weight.shape[0] != conv.out_features or bias.shape != (weight.shape[1],):
        raise PolicyFileError(
            f"{source}: {where}.linear must be ({conv.out_features}, out) and (out,) (the convolutions give "
            f"{conv.out_features}), got {weight.shape} and {bias.shape}"
        )
    return NumpyImage(part, entry["channels_last"], conv, Mlp([(weight, bias)], relu_out=True))


def read_inputs(
    spec: Mapping[str, object],
    inputs: object,
    array: Callable[[object, int, str], F32],
    parts: ObsParts | None,
    source: str,
) -> NumpyInputs | None:
    """``network.inputs`` (``None`` where absent) of the file ``spec``, whose observation is ``parts``
    (``obs_parts``), its arrays read by ``array`` (`NumpyPolicy`'s, which names the file).

    Raises:
        PolicyFileError: a file of a version before `INPUTS_VERSION`, no ``obs_parts`` to say where the
            images lie, entries that are not the image parts' in order, or an entry that is malformed or
            does not fit its image (the message names ``source`` and the field).
    """
    if inputs is None:
        return None
    require_version(spec, "network.inputs", INPUTS_VERSION, source)
    if parts is None or not parts.images:
        raise PolicyFileError(f"{source}: network.inputs needs obs_parts with the images it reads")
    if not isinstance(inputs, list) or len(inputs) != len(parts.images):
        raise PolicyFileError(
            f"{source}: network.inputs must be a list of {len(parts.images)} entries, one per image part of "
            f"obs_parts ({[p.key for p in parts.images]}), got {inputs!r:.60}"
        )
    images = {}
    for i, (entry, part) in enumerate(zip(inputs, parts.images, strict=True)):
        key = entry.get("key") if isinstance(entry, Mapping) else None
        if key != part.key:
            raise PolicyFileError(
                f"{source}: network.inputs[{i}].key must be {part.key!r}, the image parts' keys in order, "
                f"got {key!r:.60}"
            )
        images[part.key] = _image(entry, i, part, array, source)
    return NumpyInputs(parts, images)
