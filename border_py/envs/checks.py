"""The checks every Gymnasium adapter (`GymEnv`, `GymVecEnv`, the Atari envs) puts between an env and the
agent: actions against the action space, observations, rewards and episode-end flags against what the
buffer can hold, each refused with a message naming the env and the env step.

They run on every env step, so each takes the common case first (a float32 observation, a Python float
reward, a ``bool`` flag) and decides it with as few numpy calls as exactness allows; anything else goes
through the general check, with the same message at the same step.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.obs_parts import ObsParts

FLOAT32_MAX = float(np.finfo(np.float32).max)
"""The largest finite float32: a reward or observation beyond it is ``inf`` in the buffer."""
_F32 = np.dtype(np.float32)  # comparing with a dtype instance is 3x faster than with np.float32


def checked_action(space: gym.Space[Any], act: npt.NDArray[Any], name: str, clip: bool) -> Any:
    """``act`` as the env takes it; ``ValueError`` (naming the env) when it is outside ``space`` (a Box
    action is clipped into it instead with ``clip``)."""
    if isinstance(space, gym.spaces.Discrete):  # a caller that checks every step builds the check once
        a = int(act)
        if not int(space.start) <= a < int(space.start + space.n):
            raise _outside(name, a, int(space.n))
        return np.int64(a)
    assert isinstance(space, gym.spaces.Box)
    return checked_box_actions(space, np.asarray(act, dtype=space.dtype)[None], name, clip)[0]


def discrete_action_check(space: gym.spaces.Discrete, name: str) -> Callable[[Any], np.int64]:
    """`checked_action` for ``space``, with its bounds read once (an env checks every step's action)."""
    low, high, n = int(space.start), int(space.start + space.n), int(space.n)
    # np.int64, not int: Discrete.contains (which Gymnasium's envs assert) checks a Python int against
    # np.iinfo, which costs more than the whole conversion. Numpy scalars are immutable, so each action's
    # is made once and handed out every time (np.int64(a) costs 0.3 us a step, a list index 0.04).
    made = [np.int64(a) for a in range(low, high)] if high - low <= 4096 else None

    def check(act: Any) -> np.int64:
        a = int(act)
        if not low <= a < high:
            raise _outside(name, a, n)
        return np.int64(a) if made is None else made[a - low]

    return check


def _outside(name: str, act: int, n: int) -> ValueError:
    return ValueError(f"{name}: action {act} outside Discrete({n})")


def checked_box_actions(
    space: gym.spaces.Box, batch: npt.NDArray[Any], name: str, clip: bool
) -> npt.NDArray[Any]:
    """``batch`` (one action per row) checked against ``space``: the shape, NaN, and the bounds, which
    ``clip`` clips to instead of refusing.

    Raises:
        ValueError: the message names the env, the row (the sub-env) and the action.
    """
    if batch.shape[1:] != space.shape:
        raise ValueError(f"{name}: action shape {batch.shape[1:]} != action space shape {space.shape}")
    if clip:
        batch = np.clip(batch, space.low, space.high)
        bad = np.isnan(batch).reshape(len(batch), -1).any(axis=1)
    else:
        bad = ~((batch >= space.low) & (batch <= space.high)).reshape(len(batch), -1).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = "" if len(batch) == 1 else f" of sub-env {i}"
        raise ValueError(f"{name}: action {batch[i]}{where} outside {space}")
    return batch


def supported_spaces(name: str, obs_space: gym.Space[Any], act_space: gym.Space[Any]) -> ObsParts | None:
    """Refuses the spaces border_py's agents cannot act in; returns a ``Dict`` observation space's parts
    (``None`` for a ``Box``).

    Raises:
        TypeError: the observation space is neither a Box nor a Dict of Box and MultiBinary parts (a
            3-d uint8 part an image of 0-255), or the action space neither Discrete nor Box.
    """
    if not isinstance(act_space, gym.spaces.Discrete | gym.spaces.Box):
        raise TypeError(f"{name}: only Discrete and Box action spaces are supported, got {act_space}")
    if isinstance(obs_space, gym.spaces.Box):
        return None
    if not isinstance(obs_space, gym.spaces.Dict):
        raise TypeError(f"{name}: only Box and Dict observation spaces are supported, got {obs_space}")
    shapes: dict[str, tuple[int, ...]] = {}
    images: list[str] = []  # 3-d uint8 parts of 0-255: a multi-input encoder's CNN reads them
    for key, part in obs_space.spaces.items():
        if not isinstance(part, gym.spaces.Box | gym.spaces.MultiBinary):
            raise TypeError(
                f"{name}: dict observation part {key!r} is a {type(part).__name__}; border_py takes Box and "
                "MultiBinary parts"
            )
        if part.dtype == np.uint8 and len(part.shape) == 3:
            if not (isinstance(part, gym.spaces.Box) and (part.low == 0).all() and (part.high == 255).all()):
                raise TypeError(
                    f"{name}: dict observation part {key!r} is uint8 {part.shape} but not an image of "
                    "0-255 pixels; border_py reads a 3-d uint8 part as an image"
                )
            images.append(str(key))
        shapes[str(key)] = tuple(part.shape)
    try:
        return ObsParts.of(shapes, images)
    except ValueError as exc:
        raise TypeError(f"{name}: {exc}") from exc


_SMALL = 32
"""Up to this many components, `all_finite` sums Python floats (0.2 us for 4 against 1.9 us for numpy's
two calls; equal at about 100)."""


def all_finite(x: npt.NDArray[np.float32]) -> bool:
    """Whether every component of the float32 array ``x`` is finite.

    A small 1-d array is decided by the sum of its components as Python floats: a NaN or an infinity makes
    the sum NaN or infinite (``inf + -inf`` is NaN), and finite float32 components cannot overflow a
    float64 sum, so the sum is finite exactly when every component is; Python's arithmetic raises and warns
    about none of it (numpy's ``x.dot(x)`` would warn on components whose squares overflow).
    """
    if x.ndim == 1 and x.shape[0] <= _SMALL:
        return math.isfinite(sum(x.tolist()))
    return bool(np.isfinite(x).all())


def checked_obs(
    obs: Any,
    shape: tuple[int, ...],
    name: str,
    what: str,
    env_step: int,
    parts: ObsParts | None = None,
) -> npt.NDArray[np.float32]:
    """``obs`` as float32, checked against the declared ``shape`` and for NaN and infinity after the cast
    (a finite float64 can overflow float32). A dict observation (``parts``) is laid out flat first, its
    leading dimensions those of ``shape`` but the last.

    Raises:
        ValueError: the message names the env, ``what`` (the observation, a sub-env's final one) and the
            env step, with the actual and declared shapes (or the missing or misshapen key).
    """
    if parts is not None:
        try:
            obs = parts.flatten(obs, shape[:-1])
        except ValueError as exc:
            raise ValueError(f"{name}: {what} at env step {env_step}: {exc}") from None
    out = np.asarray(obs)
    if out.dtype != _F32:
        if out.dtype.kind not in "biuf":  # strings, objects, complex numbers: no float32 observation
            raise ValueError(
                f"{name}: {what} at env step {env_step} is not numeric (dtype {out.dtype}): {obs!r:.200}"
            )
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, as an error
            out = out.astype(np.float32)
    if out.shape != shape:
        raise ValueError(
            f"{name}: {what} at env step {env_step} has shape {out.shape}, but the observation space "
            f"declares {shape}"
        )
    if not all_finite(out):
        raise ValueError(f"{name}: {what} at env step {env_step} is not finite (as float32): {out}")
    return out


_REAL = (bool, int, float, np.bool_, np.integer, np.floating)


def checked_reward(reward: Any, name: str, env_step: int) -> float:
    """``reward`` as a float, refused unless it is a real number (a 0-d array of one is taken) that is
    finite as a float32 (the replay buffer's type).

    Raises:
        ValueError: the message names the env, the env step and what the reward was.
    """
    if type(reward) is not float:  # a Python float (most envs' reward) needs only the range check
        if isinstance(reward, np.ndarray) and reward.ndim == 0:
            reward = reward[()]
        if not isinstance(reward, _REAL):
            raise ValueError(
                f"{name}: reward at env step {env_step} must be a real number, got "
                f"{type(reward).__name__} {reward!r:.200}"
            )
    try:
        value = float(reward)
    except OverflowError:  # an int beyond every float (10**400)
        value = math.inf
    if not -FLOAT32_MAX <= value <= FLOAT32_MAX:  # False for NaN too
        raise ValueError(
            f"{name}: reward at env step {env_step} is not finite as a float32 (the replay buffer's type): "
            f"{reward!r:.40}"
        )
    return value


def raised_by_gymnasiums_checker(exc: BaseException) -> bool:
    """Whether ``exc`` comes from Gymnasium's passive env checker (which checks the first step's output
    with numpy and fails with a ``TypeError`` on a value numpy cannot hold), not from the env itself."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename.endswith("passive_env_checker.py")


def checked_flag(flag: Any, name: str, what: str, env_step: int) -> bool:
    """``terminated`` or ``truncated`` as a bool: a bool, or the integers 0 and 1 (a 0-d array of one is
    taken).

    Raises:
        ValueError: anything else (an array, a string, None), naming the env, the flag and the env step.
    """
    if flag is True or flag is False:  # the common case, first
        return flag
    if isinstance(flag, np.ndarray) and flag.ndim == 0:
        flag = flag[()]
    if isinstance(flag, (bool, np.bool_)) or (isinstance(flag, (int, np.integer)) and flag in (0, 1)):
        return bool(flag)
    raise ValueError(
        f"{name}: {what} at env step {env_step} must be a bool, got {type(flag).__name__} {flag!r:.200}"
    )
