"""An exported policy's two files and what every part of their reader shares: the format's name and the
versions read, ``policy.json`` and ``weights.npz`` read safely (a file of another format or version
refused before anything else; arrays never unpickled), the error every refusal raises, and the checks of a
plain field and of a part's layers. numpy alone, as `border_py.export.numpy_policy`, which builds the policy
from what this reads.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from border_py.numpy_mlp import F32

FORMAT = "border_py.policy"
READS = (1, 2, 3, 4, 5, 6)
"""The versions this border_py reads (version 1's box policies without bounds still load)."""
CLIP_MEAN_VERSION = 6
"""The version that added ``action.clip_mean`` (SAC's gSDE mean held before the tanh); a file without it
is written at the version it would have had before."""
SPEC_FILE = "policy.json"
WEIGHTS_FILE = "weights.npz"


class PolicyFileError(ValueError):
    """An exported policy's files are missing, malformed or inconsistent (the message names the file)."""


def read_policy_files(path: Path) -> tuple[dict[str, Any], dict[str, F32], str]:
    """``path/policy.json`` and ``path/weights.npz``: the description (checked to be a border_py policy of
    a version in `READS`, nothing more), the arrays by name, and the description's path for messages.

    Raises:
        PolicyFileError: a file is missing or is not what its name says.
    """
    spec_path, weights_path = path / SPEC_FILE, path / WEIGHTS_FILE
    try:
        spec = json.loads(spec_path.read_text())
    except FileNotFoundError as exc:
        raise PolicyFileError(f"{spec_path}: no such file (is {path} an exported policy?)") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PolicyFileError(f"{spec_path}: not JSON ({exc})") from exc
    except RecursionError as exc:  # a hostile file nested deeper than Python's parser recurses
        raise PolicyFileError(f"{spec_path}: nested too deep to be a policy description") from exc
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise PolicyFileError(f"{spec_path}: not a border_py policy ('format' is not {FORMAT!r})")
    if spec.get("version") not in READS:
        raise PolicyFileError(
            f"{spec_path}: version {spec.get('version')!r}; this border_py reads {list(READS)}"
        )
    try:
        with weights_path.open("rb") as f, np.load(f, allow_pickle=False) as npz:
            weights = {name: npz[name] for name in npz.files}
    except FileNotFoundError as exc:
        raise PolicyFileError(f"{weights_path}: no such file") from exc
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:  # a pickled array, a truncated file
        raise PolicyFileError(f"{weights_path}: not a numpy .npz of plain arrays ({exc})") from exc
    return spec, weights, str(spec_path)


def field(spec: Mapping[str, Any], name: str, kind: type, source: str) -> Any:
    """``spec[name]``, refused unless it is a ``kind`` (an ``int`` is never a ``bool``).

    Raises:
        PolicyFileError: the message names ``source`` and the field.
    """
    value = spec.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PolicyFileError(f"{source}: {name!r} must be a {kind.__name__}, got {value!r}")
    return value


def obs_shape(spec: Mapping[str, Any], obs_dim: int, conv: bool, source: str) -> tuple[int, ...]:
    """``obs_shape`` (versions 1 and 2 have none: ``(obs_dim,)``), checked against ``obs_dim``: pixels
    ``(channels, height, width)`` with convolutions, a vector without.

    Raises:
        PolicyFileError: the message names ``source`` and ``obs_shape``.
    """
    shape = spec.get("obs_shape", [obs_dim])
    if (
        not isinstance(shape, list)
        or len(shape) != (3 if conv else 1)
        or not all(isinstance(side, int) and not isinstance(side, bool) and side > 0 for side in shape)
    ):
        expected = "[channels, height, width] with network.conv" if conv else "[obs_dim]"
        raise PolicyFileError(f"{source}: 'obs_shape' must be {expected} (positive integers), got {shape!r}")
    if math.prod(shape) != obs_dim:
        raise PolicyFileError(
            f"{source}: 'obs_shape' {shape} holds {math.prod(shape)} values, obs_dim is {obs_dim}"
        )
    return tuple(shape)


def read_layers(
    net: Mapping[str, Any], name: str, array: Callable[[object, int, str], F32], source: str
) -> list[tuple[F32, F32]]:
    """``network.{name}``, a list of ``[weight, bias]`` names, as the layers they name (read by ``array``),
    checked to chain.

    Raises:
        PolicyFileError: not such a list, a bias of another length than its layer's outputs, or a layer
            that does not take the outputs of the one before (the message names ``source`` and the part).
    """
    names = field(net, name, list, source)
    if not names or not all(isinstance(n, list) and len(n) == 2 for n in names):
        raise PolicyFileError(f"{source}: network.{name} must be a non-empty list of [weight, bias] names")
    layers: list[tuple[F32, F32]] = []
    for w_name, b_name in names:
        w, b = array(w_name, 2, source), array(b_name, 1, source)
        if b.shape[0] != w.shape[1]:
            raise PolicyFileError(
                f"{source}: bias {b_name!r} has {b.shape[0]} entries, layer has {w.shape[1]}"
            )
        if layers and layers[-1][0].shape[1] != w.shape[0]:
            raise PolicyFileError(
                f"{source}: network.{name}: {w_name!r} takes {w.shape[0]} inputs, the layer before gives "
                f"{layers[-1][0].shape[1]}"
            )
        layers.append((w, b))
    return layers


def require_version(spec: Mapping[str, Any], field_name: str, since: int, source: str | None = None) -> None:
    """Refuses a file of a version before ``since`` that holds ``field_name``, which came in ``since``:
    its writer never wrote it, so the file is not what it says.

    Raises:
        PolicyFileError: one line naming the field and both versions (after ``source``, when given).
    """
    version = spec.get("version")
    if not (isinstance(version, int) and version >= since):
        where = "" if source is None else f"{source}: "
        message = f"'{field_name}' came in version {since}, the file is version {version!r}"
        raise PolicyFileError(where + message)


def read_clip_mean(spec: Mapping[str, Any], kind: str, source: str) -> float | None:
    """``action.clip_mean``: a positive number with the ``tanh`` squash of the ``mlp`` or ``lstm`` kind in a
    file of version 6 or later, or absent (``None``).

    Raises:
        PolicyFileError: it is there and is not that (an older file's, which an older reader would ignore;
            another kind's, whose reader would act unheld).
    """
    action = spec["action"]
    clip = action.get("clip_mean")
    if clip is None:
        return None
    require_version(spec, "action.clip_mean", CLIP_MEAN_VERSION, source)
    if kind not in ("mlp", "lstm"):
        raise PolicyFileError(f"{source}: action.clip_mean is for the mlp and lstm kinds, not {kind}")
    if (
        action.get("squash") != "tanh"
        or isinstance(clip, bool)
        or not isinstance(clip, int | float)
        or clip <= 0
    ):
        raise PolicyFileError(f"{source}: action.clip_mean must be a positive number, with squash tanh")
    if not np.isfinite(clip):
        raise PolicyFileError(f"{source}: action.clip_mean must be finite, got {clip!r}")
    return float(clip)
