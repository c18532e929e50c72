"""gymnasium-robotics' envs (the ``robotics`` extra): their ids found on first use, and the one fix they
need on the MuJoCo this project runs.

gymnasium-robotics registers its ids (``FetchReach-v4``, ``PointMaze_UMaze-v3``, ...) with Gymnasium when
it is imported, under no namespace. `border_py.envs.gymnasium.make_gym` calls `import_robotics` for an id
of one of its families (`is_robotics_id`), so ``border-py train sac
--env FetchReach-v4`` works as ``HalfCheetah-v5`` does: the id names no module, so a ``config.yaml`` that
holds it reads back without ``--trust-code`` (the package imported is this fixed one, never one a file
names). ``gymnasium_robotics:FetchReach-v4`` works too, patched alike. ``import border_py`` imports none of
it.

The fix. gymnasium-robotics 1.4.2 (its newest release) reads and writes one joint's ``qpos`` and ``qvel``
through four functions of ``gymnasium_robotics.utils.mujoco_utils`` that assert ``joint_type in
(mjJNT_HINGE, mjJNT_SLIDE)`` for a joint that is neither free nor a ball. ``model.jnt_type[i]`` is a numpy
integer, and under mujoco's newer enum class (mujoco 4.0.0 here; 3.3.0 and older pass) ``enum == numpy
int`` is False: ``in`` asks the enum first, though ``numpy int == enum`` is True. Every Fetch env then
fails at construction (its slide and hinge joints are set in ``_env_setup``). `patch_joint_functions`
replaces the four with `set_joint_qpos`, `set_joint_qvel`, `get_joint_qpos` and `get_joint_qvel` below,
which compare joint types as plain ints and otherwise do what the originals do (a ball joint's ``qvel``
is 3 wide in both getter and setter; the original getter's 4 reads one value too many). The envs call
them through the module (``self._utils.set_joint_qpos``), so replacing the module's attributes reaches
every env made afterwards. It is applied only where the original fails on a hinge joint (`needs_patch`):
with a mujoco or a gymnasium-robotics that agree, nothing is replaced. A fix kept here rather than a
mujoco pin for the extra: a pin to 3.3.0 or older would change the MuJoCo of every MuJoCo env wherever the
extra is installed (``dev`` among them), and 3.3.0 and 4.0.0 roll the same actions out differently
(``benchmarks/RESULTS.md``), where under 3.3.0 these functions and the originals give the same Fetch
observations bit for bit.

This module imports only numpy and Gymnasium at its top (mujoco and gymnasium-robotics when an id of theirs
is made) and nothing of border_py: the SB3 side of ``benchmarks.her_fetch`` makes the env through it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

FAMILIES = (
    "Fetch",
    "HandManipulate",
    "HandReach",
    "AdroitHand",
    "PointMaze_",
    "AntMaze_",
    "FrankaKitchen-",
)
"""The names gymnasium-robotics' ids start with (``FetchReach-v4``, ``PointMaze_UMaze-v3``, ...)."""
MODULE = "gymnasium_robotics"
EXTRA_HINT = "pip install 'border_py[robotics]' (gymnasium-robotics)"

_WIDTHS = {"qpos": {"FREE": 7, "BALL": 4}, "qvel": {"FREE": 6, "BALL": 3}}
"""A joint's width in ``qpos`` and ``qvel`` by its type (slide and hinge joints: 1)."""


def is_robotics_id(name: str) -> bool:
    """Whether ``name`` is one of gymnasium-robotics' ids, by its family (with or without the
    ``gymnasium_robotics:`` module prefix).

    Examples:
        >>> is_robotics_id("FetchReach-v4"), is_robotics_id("gymnasium_robotics:FetchPush-v4")
        (True, True)
        >>> is_robotics_id("HalfCheetah-v5"), is_robotics_id("mypkg:FetchReach-v4")
        (False, False)
    """
    module, colon, env_id = name.rpartition(":")
    if colon and module != MODULE:
        return False
    return env_id.startswith(FAMILIES)


def import_robotics(name: str) -> None:
    """Imports gymnasium-robotics, which registers its ids, and patches its joint functions where the
    installed mujoco needs it (`patch_joint_functions`). Without gymnasium-robotics, an id that is
    registered already (an env of the user's named like one of its families) is left to Gymnasium.

    Args:
        name: the env id asked for.

    Raises:
        ValueError: gymnasium-robotics is not installed and ``name`` is not registered (naming the env and
            the extra).
    """
    if importlib.util.find_spec(MODULE) is None:
        if name in gym.registry:
            return
        raise ValueError(f"env name {name!r}: a gymnasium-robotics env, which is not installed: {EXTRA_HINT}")
    _import_patched()


@functools.cache
def _import_patched() -> None:
    """Once a process: imports gymnasium-robotics and patches its joint functions if they need it."""
    # Importing the submodule imports the package first, which registers the ids.
    patch_joint_functions(importlib.import_module(f"{MODULE}.utils.mujoco_utils"))


def patch_joint_functions(utils: Any) -> bool:
    """Replaces the four joint functions of ``utils`` (``gymnasium_robotics.utils.mujoco_utils``) with
    this module's where the originals fail on a hinge joint (`needs_patch`). Returns whether it did."""
    if not needs_patch(utils):
        return False
    for fixed in (set_joint_qpos, set_joint_qvel, get_joint_qpos, get_joint_qvel):
        setattr(utils, fixed.__name__, fixed)
    return True


_PROBE = (
    "<mujoco><worldbody><body><joint name='j' type='hinge'/><geom size='.1'/></body></worldbody></mujoco>"
)


def needs_patch(utils: Any) -> bool:
    """Whether ``utils.set_joint_qpos`` fails on a one-hinge model (the assertion on the joint type)."""
    if utils.set_joint_qpos is set_joint_qpos:
        return False  # patched already
    import mujoco

    model = mujoco.MjModel.from_xml_string(_PROBE)
    try:
        utils.set_joint_qpos(model, mujoco.MjData(model), "j", 0.5)
    except AssertionError:
        return True
    return False


def _span(model: Any, name: str, field: str) -> slice:
    """Where joint ``name`` lies in ``qpos`` or ``qvel`` (``field``), its type compared as an int.

    Raises:
        ValueError: the model has no joint ``name``, or its type is not one MuJoCo defines.
    """
    import mujoco

    joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    if joint == -1:
        raise ValueError(f"joint {name!r}: not part of the model")
    kind = int(model.jnt_type[joint])
    widths = {int(getattr(mujoco.mjtJoint, f"mjJNT_{t}")): w for t, w in _WIDTHS[field].items()}
    widths |= {int(mujoco.mjtJoint.mjJNT_SLIDE): 1, int(mujoco.mjtJoint.mjJNT_HINGE): 1}
    if kind not in widths:
        raise ValueError(f"joint {name!r}: unknown joint type {kind}")
    start = int((model.jnt_qposadr if field == "qpos" else model.jnt_dofadr)[joint])
    return slice(start, start + widths[kind])


def _checked(value: Any, span: slice, name: str) -> npt.NDArray[Any]:
    array = np.array(value)
    width = span.stop - span.start
    if width > 1 and array.shape != (width,):
        raise ValueError(f"joint {name!r}: value of shape {array.shape}, expected ({width},)")
    return array


def set_joint_qpos(model: Any, data: Any, name: str, value: Any) -> None:
    """Sets joint ``name``'s ``qpos`` (gymnasium-robotics' function, its joint types compared as ints)."""
    span = _span(model, name, "qpos")
    data.qpos[span] = _checked(value, span, name)


def set_joint_qvel(model: Any, data: Any, name: str, value: Any) -> None:
    """Sets joint ``name``'s ``qvel`` (gymnasium-robotics' function, its joint types compared as ints)."""
    span = _span(model, name, "qvel")
    data.qvel[span] = _checked(value, span, name)


def get_joint_qpos(model: Any, data: Any, name: str) -> npt.NDArray[np.float64]:
    """A copy of joint ``name``'s ``qpos`` (gymnasium-robotics' function, types compared as ints)."""
    result: npt.NDArray[np.float64] = data.qpos[_span(model, name, "qpos")].copy()
    return result


def get_joint_qvel(model: Any, data: Any, name: str) -> npt.NDArray[np.float64]:
    """A copy of joint ``name``'s ``qvel`` (gymnasium-robotics' function, types compared as ints)."""
    result: npt.NDArray[np.float64] = data.qvel[_span(model, name, "qvel")].copy()
    return result
