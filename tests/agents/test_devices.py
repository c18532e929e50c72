"""A config's ``device`` is checked without torch, and the check agrees with torch: every name torch parses
as a device is accepted (``cpu``, ``cuda``, ``cuda:N``) or refused as a device border_py's agents do not
run on, and every name torch refuses is refused as no torch device, with the same messages as before."""

from __future__ import annotations

import re
import warnings

import attrs
import pytest
import torch

from border_py.agents.devices import _TORCH_DEVICE_TYPES, device_name


@attrs.frozen
class _Config:
    device: str = attrs.field(validator=device_name)


def _torch_types() -> set[str]:
    """The device types torch lists when it refuses one."""
    with pytest.raises(RuntimeError) as refused:
        torch.device("nosuch")
    listed = re.search(r"Expected one of (.+) device type", str(refused.value))
    assert listed is not None, str(refused.value)
    return set(listed[1].split(", "))


def test_the_device_types_are_torchs() -> None:
    assert _torch_types() == _TORCH_DEVICE_TYPES


NAMES = ["cpu", "cuda", "cuda:0", "cuda:1", "cpu:0", "cuda:12", "meta", "mps", "xpu:1", "hip", "tpu",
         "gpu", "CUDA", "", "cuda:", "cuda:01", "cuda:-1", "cuda:+1", "cuda: 1", " cpu", "cpu ", "cuda:x",
         "cuda:1:2", "privateuse1"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_a_device_name_is_checked_as_torch_parses_it(name: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a deprecated device type warns
            parsed: torch.device | None = torch.device(name)
    except RuntimeError:
        parsed = None
    if parsed is None:
        with pytest.raises(ValueError, match=re.escape(f"'device' is not a torch device: {name!r}")):
            _Config(name)
    elif parsed.type in ("cpu", "cuda"):
        assert _Config(name).device == name
    else:
        unsupported = f"'device' {name!r}: border_py's agents run on 'cpu' and 'cuda'"
        with pytest.raises(ValueError, match=re.escape(unsupported)):
            _Config(name)
