"""Step processors: env steps in, buffer items out.

``NStepStepProcessor`` emits n-step transitions: the discounted sum of ``n`` rewards and a bootstrap from the
observation ``n`` steps later, cut short at an episode end so that no reward of the next episode leaks in.
``SimpleStepProcessor`` is its one-step case: one `Transition` per env step.
``FrameStackStepProcessor`` does the same for frame-stacked pixels but emits only each observation's newest
frame (`FrameTransition`), for a buffer that stores every frame once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.replay_buffer.transition import FrameTransition, Transition

_gamma_validator = [attrs.validators.ge(0.0), attrs.validators.le(1.0)]


def _n_step_return(rewards: Iterable[float], gamma: float) -> tuple[float, float]:
    """``(r_0 + gamma r_1 + ... + gamma^(k-1) r_(k-1), gamma^k)`` for the ``k`` ``rewards``."""
    ret, discount = 0.0, 1.0
    for reward in rewards:
        ret += discount * reward
        discount *= gamma
    return ret, discount


def _next_prev_obs(
    step: Step[npt.NDArray[Any], npt.NDArray[Any]], ended: bool, owner: object
) -> npt.NDArray[Any]:
    """The observation the next transition starts from: ``init_obs`` after an episode end."""
    if ended:
        if step.init_obs is None:
            raise RuntimeError(
                f"{type(owner).__name__}: a step that ends an episode must carry init_obs "
                "(the env resets itself)"
            )
        return step.init_obs
    return step.obs


def _transition(
    obs: npt.NDArray[Any],
    act: npt.NDArray[Any],
    step: Step[npt.NDArray[Any], npt.NDArray[Any]],
    reward: float,
    discount: float,
    ended: bool,
) -> Transition:
    """The transition from ``obs`` (where ``act`` was taken) through ``step``; it carries ``step``'s
    episode-end flags only when ``ended``."""
    return Transition(
        obs=obs,
        act=act,
        next_obs=step.obs,
        reward=reward,
        is_terminated=ended and step.is_terminated,
        is_truncated=ended and step.is_truncated,
        discount=discount,
    )


class NStepStepProcessor:
    """Emits n-step transitions: ``reward = r_t + gamma r_(t+1) + ... + gamma^(n-1) r_(t+n-1)``,
    ``next_obs = s_(t+n)`` and ``discount = gamma^n``.

    It keeps the last ``n`` ``(obs, act, reward)`` of the current episode. Once ``n`` are pending, each
    step completes the oldest. At an episode end every pending one is completed at once with the rewards up
    to the end, ``next_obs`` the episode's final observation, ``discount = gamma^k`` for its ``k`` rewards
    and the step's ``is_terminated``/``is_truncated``: an agent bootstraps from the final observation of a
    truncated episode and not at all from a terminated one, and no reward of the next episode leaks in.
    With ``n_steps = 1`` it emits what `SimpleStepProcessor` does.

    Args:
        n_steps: the number of rewards summed (>= 1).
        gamma: the discount factor per env step.

    Examples:
        >>> p = NStepStepProcessor(n_steps=2, gamma=0.5)
        >>> p.reset(np.zeros(1, np.float32))
        >>> step = Step(act=np.array(0), obs=np.ones(1, np.float32), reward=1.0,
        ...             is_terminated=False, is_truncated=False)
        >>> p.process(step)
        []
        >>> [(t.reward, t.discount) for t in p.process(step)]
        [(1.5, 0.25)]
    """

    def __init__(self, n_steps: int, gamma: float) -> None:
        if n_steps < 1:
            raise ValueError(f"n_steps must be >= 1, got {n_steps}")
        self.n_steps = n_steps
        self.gamma = gamma
        self._prev_obs: npt.NDArray[Any] | None = None
        self._pending: deque[tuple[npt.NDArray[Any], npt.NDArray[Any], float]] = deque()

    def reset(self, init_obs: npt.NDArray[Any]) -> None:
        """Starts an episode from ``init_obs``, dropping whatever an unfinished episode left pending."""
        self._prev_obs = init_obs
        self._pending.clear()

    def _complete(self, step: Step[npt.NDArray[Any], npt.NDArray[Any]], ended: bool) -> Transition:
        """The transition from the oldest pending entry through ``step`` (which it pops)."""
        obs, act, _ = self._pending[0]
        ret, discount = _n_step_return((reward for _, _, reward in self._pending), self.gamma)
        self._pending.popleft()
        return _transition(obs, act, step, ret, discount, ended)

    def process(self, step: Step[npt.NDArray[Any], npt.NDArray[Any]]) -> list[Transition]:
        """Returns the transitions ``step`` completes, oldest first: none while fewer than ``n_steps`` are
        pending, one in mid-episode, every pending one at an episode end.

        Raises:
            RuntimeError: ``reset`` was never called, or an ended episode's step carries no ``init_obs``.
        """
        obs = self._prev_obs
        if obs is None:
            raise RuntimeError(f"{type(self).__name__}.process called before reset(init_obs)")
        terminated, truncated = step.is_terminated, step.is_truncated
        ended = terminated or truncated
        self._prev_obs = _next_prev_obs(step, ended, self) if ended else step.obs
        if self.n_steps == 1:
            # The general path below gives the same transition (`_transition`, inlined: this runs on every
            # env step); this one skips the pending queue, which costs more than building the transition.
            return [
                Transition(
                    obs=obs,
                    act=np.asarray(step.act),
                    next_obs=step.obs,
                    reward=step.reward,
                    is_terminated=terminated,
                    is_truncated=truncated,
                    discount=self.gamma,
                )
            ]
        self._pending.append((obs, np.asarray(step.act), step.reward))
        if ended:
            return [self._complete(step, ended=True) for _ in range(len(self._pending))]
        if len(self._pending) == self.n_steps:
            return [self._complete(step, ended=False)]
        return []


@attrs.frozen(kw_only=True)
class NStepStepProcessorConfig:
    """Config of `NStepStepProcessor`.

    Examples:
        >>> NStepStepProcessorConfig(n_steps=3, gamma=0.99).build().n_steps
        3
    """

    n_steps: int = attrs.field(default=3, validator=attrs.validators.ge(1))
    """In env steps: how many rewards each transition sums before bootstrapping."""
    gamma: float = attrs.field(default=0.99, validator=_gamma_validator)
    """Unitless, per env step: the discount factor (each transition's discount is ``gamma^k``)."""

    def build(self) -> NStepStepProcessor:
        """Builds the step processor."""
        return NStepStepProcessor(self.n_steps, self.gamma)


class SimpleStepProcessor(NStepStepProcessor):
    """Emits one one-step `Transition` per step (discount ``gamma``): an `NStepStepProcessor`
    with ``n_steps = 1``.

    Trap: at an episode end, ``step.obs`` is the final observation of the ended episode (it becomes
    ``next_obs``, which a truncated transition bootstraps from) and ``step.init_obs`` is the first
    observation of the next episode (it becomes the next transition's ``obs``).

    Args:
        gamma: the discount factor per env step, stored as each transition's ``discount``.

    Examples:
        >>> p = SimpleStepProcessor(gamma=0.99)
        >>> p.reset(np.zeros(2, np.float32))
    """

    def __init__(self, gamma: float) -> None:
        super().__init__(1, gamma)


@attrs.frozen(kw_only=True)
class SimpleStepProcessorConfig:
    """Config of `SimpleStepProcessor`.

    Examples:
        >>> SimpleStepProcessorConfig(gamma=0.9).build().gamma
        0.9
    """

    gamma: float = attrs.field(default=0.99, validator=_gamma_validator)
    """Unitless, per env step: the discount factor the agents' TD targets use."""

    def build(self) -> SimpleStepProcessor:
        """Builds the step processor."""
        return SimpleStepProcessor(self.gamma)


class FrameStackStepProcessor:
    """Emits n-step `FrameTransition` s of frame-stacked observations ``(stack, height, width)``
    (uint8, the newest frame last): the rewards, discounts and episode ends of
    `NStepStepProcessor`, but of ``obs`` only its newest frame, and ``next_obs`` as an offset.

    A `FrameReplayBuffer` rebuilds the stacks from those frames, with
    zeros before an episode's first observation (what ale-py's vector env shows). That the rebuilt stack
    is the observation the agent acted on is checked here, on every step: an episode's first observation
    must hold zeros but for its newest frame, and each later one must be the previous one shifted by one
    frame. An env that stacks otherwise is refused with a ``ValueError`` on its first step, before a wrong
    stack is ever learned from.

    Args:
        n_steps: the number of rewards summed (>= 1).
        gamma: the discount factor per env step.

    Examples:
        >>> p = FrameStackStepProcessor(n_steps=1, gamma=0.99)
        >>> first = np.zeros((4, 2, 2), np.uint8); first[-1] = 1
        >>> p.reset(first)
        >>> nxt = np.concatenate([first[1:], np.full((1, 2, 2), 2, np.uint8)])
        >>> [item] = p.process(Step(act=np.array(0), obs=nxt, reward=1.0,
        ...                         is_terminated=False, is_truncated=False))
        >>> int(item.frame[0, 0]), item.episode_start, item.next_offset
        (1, True, 1)
    """

    def __init__(self, n_steps: int, gamma: float) -> None:
        if n_steps < 1:
            raise ValueError(f"n_steps must be >= 1, got {n_steps}")
        self.n_steps = n_steps
        self.gamma = gamma
        self._prev_obs: npt.NDArray[np.uint8] | None = None
        self._at_start = True
        self._stream = 0
        # (newest frame, action, reward, episode_start) of each observation whose transition is pending.
        self._pending: deque[tuple[npt.NDArray[np.uint8], npt.NDArray[Any], float, bool]] = deque()

    def reset(self, init_obs: npt.NDArray[np.uint8]) -> None:
        """Starts an episode from ``init_obs``, dropping whatever an unfinished episode left pending.

        Raises:
            ValueError: ``init_obs`` is not a uint8 stack with zeros before its newest frame.
        """
        self._prev_obs = self._first_obs(init_obs)
        self._at_start = True
        self._pending.clear()

    def _first_obs(self, obs: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
        if obs.dtype != np.uint8 or obs.ndim != 3:
            raise ValueError(
                f"{type(self).__name__} takes uint8 frame stacks (stack, height, width), got "
                f"{obs.dtype} {obs.shape}"
            )
        if obs[:-1].any():
            raise ValueError(
                f"{type(self).__name__}: an episode's first observation must hold zeros before its newest "
                "frame (the frame replay buffer rebuilds stacks that way); this env pads its stacks "
                "otherwise (an Atari game with episodic_life carries its frames into the episode after a "
                "lost life)"
            )
        return obs

    def _complete(self, step: Step[Any, Any], ended: bool, offset: int, final: bool) -> FrameTransition:
        frame, act, _, start = self._pending[0]
        ret, discount = _n_step_return((reward for _, _, reward, _ in self._pending), self.gamma)
        self._pending.popleft()
        return FrameTransition(
            frame=frame,
            act=act,
            reward=ret,
            is_terminated=ended and step.is_terminated,
            is_truncated=ended and step.is_truncated,
            discount=discount,
            episode_start=start,
            next_offset=offset,
            final_frame=step.obs[-1] if final else None,
            stream=self._stream,
        )

    def process(self, step: Step[npt.NDArray[np.uint8], npt.NDArray[Any]]) -> list[FrameTransition]:
        """Returns the transitions ``step`` completes, oldest first (as `NStepStepProcessor.process`).

        Raises:
            RuntimeError: ``reset`` was never called, or an ended episode's step carries no ``init_obs``.
            ValueError: ``step.obs`` is not the previous observation shifted by one frame, or the next
                episode's first observation is not zero-padded.
        """
        obs = self._prev_obs
        if obs is None:
            raise RuntimeError(f"{type(self).__name__}.process called before reset(init_obs)")
        if step.obs.shape != obs.shape or not np.array_equal(step.obs[:-1], obs[1:]):
            raise ValueError(
                f"{type(self).__name__}: the observation is not the previous one shifted by one frame: "
                "the env does not stack frames as the frame replay buffer rebuilds them"
            )
        ended = step.is_done
        # A vector env's sub-env index (ale-py's info key), so the buffer keeps its items in a lane apart.
        self._stream = int(step.info.get("env_id", 0)) if step.info else 0
        self._pending.append((obs[-1], np.asarray(step.act), step.reward, self._at_start))
        self._at_start = False
        if ended:
            k = len(self._pending)
            items = [self._complete(step, True, k - i, final=i == k - 1) for i in range(k)]
            self._prev_obs = self._first_obs(_next_prev_obs(step, ended, self))
            self._at_start = True
            return items
        self._prev_obs = step.obs
        if len(self._pending) == self.n_steps:
            return [self._complete(step, False, self.n_steps, final=False)]
        return []


@attrs.frozen(kw_only=True)
class FrameStackStepProcessorConfig:
    """Config of `FrameStackStepProcessor`.

    Examples:
        >>> FrameStackStepProcessorConfig(n_steps=3, gamma=0.99).build().n_steps
        3
    """

    n_steps: int = attrs.field(default=1, validator=[attrs.validators.ge(1), attrs.validators.le(255)])
    """In env steps: how many rewards each transition sums before bootstrapping (at most 255)."""
    gamma: float = attrs.field(default=0.99, validator=_gamma_validator)
    """Unitless, per env step: the discount factor (each transition's discount is ``gamma^k``)."""

    def build(self) -> FrameStackStepProcessor:
        """Builds the step processor."""
        return FrameStackStepProcessor(self.n_steps, self.gamma)
