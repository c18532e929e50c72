"""The agents' ``device`` field, checked without torch: an experiment's configs are data, and reading one
(a YAML file, ``--set agent.device=...``) imports no torch. Whether the device exists on this machine is
checked when the agent is built (`border_py.agents.toolkit.torch_device`)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["DEVICE_TYPES", "device_name"]

DEVICE_TYPES = ("cpu", "cuda")
"""The devices border_py's agents are built and tested for (``meta``, ``mps``, ``xpu`` are refused)."""

_TORCH_DEVICE_TYPES = frozenset({"cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                                 "privateuseone"})  # fmt: skip
"""The device types ``torch.device`` parses (its error lists them): naming one that is not in
`DEVICE_TYPES` is told so, naming none is not a torch device (tests/agents checks this against torch)."""

_DEVICE = re.compile(r"([a-z]+)(?::(?:0|[1-9][0-9]*))?")
"""``torch.device``'s syntax: a type and an optional index without sign, spaces or leading zeros."""


def device_name(instance: object, attribute: Any, value: str) -> None:
    """attrs validator of a config's ``device`` field: a torch device name (``cpu``, ``cuda``, ``cuda:1``).
    Whether the device exists is checked when the agent is built, so a config written on a GPU machine
    still loads on a CPU one.

    Examples:
        >>> import attrs
        >>> @attrs.frozen
        ... class Config:
        ...     device: str = attrs.field(validator=device_name)
        >>> Config("cuda:1").device
        'cuda:1'
        >>> Config("tpu")
        Traceback (most recent call last):
        ValueError: 'device' is not a torch device: 'tpu'
    """
    found = _DEVICE.fullmatch(value) if isinstance(value, str) else None
    if found is None or found[1] not in _TORCH_DEVICE_TYPES:
        raise ValueError(f"'{attribute.name}' is not a torch device: {value!r}")
    if found[1] not in DEVICE_TYPES:
        raise ValueError(
            f"'{attribute.name}' {value!r}: border_py's agents run on 'cpu' and 'cuda' (or 'cuda:N') only"
        )
