"""Goal relabelling (hindsight experience replay, Andrychowicz et al. 2017) as a step processor.

`HerStepProcessor` holds each episode of a goal-conditioned env until it ends, then emits every
transition and, beside each, ``n_sampled_goal`` (the paper's k) copies whose desired goal is one the
episode achieved: later in it (``future``), at its end (``final``) or anywhere in it (``episode``). A
copy's reward is the env's own ``compute_reward`` for that goal, batched over the episode; its
``is_terminated`` and ``is_truncated`` are the env's. The goal lies in the flat observation where the
env's `ObsParts` puts ``desired_goal``, in ``obs`` and ``next_obs`` alike.

Why relabel when storing (the paper's Algorithm 1) rather than when sampling (Stable-Baselines3's
``HerReplayBuffer`` stores episodes and swaps a new goal into each drawn transition with probability
k/(k+1)):

- The data path stays plain: Env -> SyncSampler -> StepProcessor -> Buffer -> Agent.opt. Any buffer that
  stores `Transition` s (uniform or prioritized) takes the copies, and agents learn from plain batches.
- Exact resume needs nothing new. The buffer's file holds the copies already, and the unfinished episode
  is the sampler's, replayed into this processor on resume. The relabelling's random draws are a function
  of the episode (a digest of its observations and actions), so a replayed episode is relabelled as it
  would have been, with no generator state to checkpoint; the sub-envs of a vector env draw apart.
- Each copy's reward is computed once, when stored, not on every batch.

What it costs: the buffer holds ``1 + n_sampled_goal`` transitions per env step (k = 4: a capacity of
1,000,000 keeps the last 200,000 env steps, where SB3's keeps 1,000,000); a copy's goal is fixed once
stored (SB3 draws a new one each time the transition is sampled); an episode reaches the buffer only when
it ends, and is held in memory until then. A batch holds the same k/(k+1) share of relabelled
transitions as SB3's. Under ``final`` the k copies are identical (k = 1 then saves capacity; a larger k
weighs them as SB3's k/(k+1) does).

Examples:
    >>> goal_steps("final", 3, 2, np.random.default_rng(0)).tolist()
    [[2, 2], [2, 2], [2, 2]]
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.goal_env import GoalEnv, GoalReward
from border_py.base.obs_parts import ObsParts
from border_py.base.step import Step
from border_py.replay_buffer.transition import Transition

Strategy = Literal["future", "final", "episode"]
STRATEGIES: tuple[Strategy, ...] = ("future", "final", "episode")
ACHIEVED, DESIRED = "achieved_goal", "desired_goal"
"""The parts of a goal-conditioned env's observation that relabelling reads and writes."""

Obs = npt.NDArray[np.float32]


def goal_steps(strategy: str, length: int, k: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """For each transition ``t`` of an episode of ``length`` transitions, the ``k`` steps whose achieved
    goals (after the step) become its relabelled goals, shape ``(length, k)``.

    ``future``: uniform over ``t .. length - 1``, ``t`` itself included (its own achieved goal, whose
    reward is a success: the paper's and SB3's choice); ``final``: ``length - 1``; ``episode``: uniform
    over ``0 .. length - 1``.
    """
    if strategy == "final":
        return np.full((length, k), length - 1, dtype=np.int64)
    low = np.arange(length)[:, None] if strategy == "future" else 0
    return rng.integers(low, length, size=(length, k), dtype=np.int64)


@attrs.frozen
class GoalLayout:
    """Where the goals lie in a goal-conditioned env's flat observation."""

    achieved: slice
    """``achieved_goal``'s span."""
    desired: slice
    """``desired_goal``'s span."""
    shape: tuple[int, ...]
    """A goal's shape, as ``compute_reward`` takes it."""

    @classmethod
    def of(cls, parts: ObsParts | None) -> GoalLayout | str:
        """The layout of an env's observation parts; what is missing (a phrase) when they hold no goals."""
        if parts is None:
            return f"observations that are a dict of {ACHIEVED!r}, {DESIRED!r} and 'observation'"
        missing = [key for key in (ACHIEVED, DESIRED) if key not in parts.keys]
        if missing:
            return f"an observation part {missing[0]!r} (it has {', '.join(map(repr, parts.keys))})"
        if set(parts.keys) <= {ACHIEVED, DESIRED}:
            return "an observation part besides the goals (such as 'observation')"
        shapes = {p.key: p.shape for p in parts.parts}
        if shapes[ACHIEVED] != shapes[DESIRED]:
            return f"goals of one shape ({ACHIEVED!r} is {shapes[ACHIEVED]}, {DESIRED!r} {shapes[DESIRED]})"
        return cls(parts.span(ACHIEVED), parts.span(DESIRED), shapes[ACHIEVED])


def read_goal_env(env: object, who: str) -> tuple[GoalLayout, GoalReward]:
    """The goal layout and reward function of ``env``, for ``who``.

    Raises:
        ValueError: ``env`` is not goal-conditioned (one line naming ``who``, the env and what it lacks).
    """
    name = getattr(env, "name", type(env).__name__)
    if not isinstance(env, GoalEnv):
        raise ValueError(
            f"{who} needs a goal-conditioned env, but {name} has no obs_parts and goal_reward() "
            "(border_py.base.GoalEnv)"
        )
    layout, reward = GoalLayout.of(env.obs_parts), env.goal_reward()
    if isinstance(layout, str) or reward is None:
        lacks = [layout] if isinstance(layout, str) else []
        lacks += ["compute_reward"] if reward is None else []
        raise ValueError(f"{who} needs a goal-conditioned env, but {name} has no {' and no '.join(lacks)}")
    return layout, reward


def relabel(
    obs: Obs,
    next_obs: Obs,
    infos: Sequence[Mapping[str, Any]],
    picks: npt.NDArray[np.int64],
    layout: GoalLayout,
    compute_reward: GoalReward,
) -> tuple[Obs, Obs, npt.NDArray[np.float64]]:
    """The relabelled copies of an episode's transitions (``obs``, ``next_obs``: ``(length, dim)``).

    Transition ``t``'s copy ``j`` takes the goal achieved after step ``picks[t, j]``; the copies come
    ``t``-major (transition 0's ``k`` copies first).

    Returns:
        Their ``obs``, ``next_obs`` and rewards, ``length * k`` rows each.

    Raises:
        ValueError: ``compute_reward`` did not return one finite reward per goal.
    """
    length, k = picks.shape
    rows = np.repeat(np.arange(length), k)
    goals = next_obs[picks.reshape(-1), layout.achieved]
    new_obs, new_next = obs[rows], next_obs[rows]  # fancy indexing: copies, the episode stays as it was
    new_obs[:, layout.desired] = goals
    new_next[:, layout.desired] = goals
    achieved = new_next[:, layout.achieved].reshape(len(rows), *layout.shape)
    raw = compute_reward(achieved, goals.reshape(len(rows), *layout.shape), [infos[t] for t in rows.tolist()])
    rewards = np.asarray(raw, dtype=np.float64)
    if rewards.shape != (len(rows),) or not np.isfinite(rewards).all():
        raise ValueError(
            f"compute_reward gave rewards of shape {rewards.shape} for {len(rows)} goals (one finite reward "
            "per goal wanted: it must take batches of goals)"
        )
    return new_obs, new_next, rewards


def episode_rng(*arrays: npt.NDArray[Any]) -> np.random.Generator:
    """A generator seeded by a digest of ``arrays``: the same episode always draws the same goals."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return np.random.default_rng(int.from_bytes(digest.digest(), "little"))


class HerStepProcessor:
    """Emits each episode's one-step transitions at its end, each followed by its ``n_sampled_goal``
    relabelled copies (the module's docstring says how and why).

    The sampler hands it the env (`read_env`) before the first step; it refuses an env without the
    goals or ``compute_reward``.

    Args:
        strategy: where the relabelled goals come from: ``future``, ``final`` or ``episode``.
        n_sampled_goal: the relabelled copies per transition (>= 1).
        gamma: the discount factor per env step, stored as each transition's ``discount``.

    Raises:
        ValueError: an unknown strategy, or ``n_sampled_goal`` < 1.
    """

    def __init__(self, strategy: str = "future", n_sampled_goal: int = 4, gamma: float = 0.99) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {list(STRATEGIES)}, got {strategy!r}")
        if n_sampled_goal < 1:
            raise ValueError(f"n_sampled_goal must be >= 1, got {n_sampled_goal}")
        self.strategy, self.n_sampled_goal, self.gamma = strategy, n_sampled_goal, gamma
        self._env: tuple[GoalLayout, GoalReward] | None = None
        self._prev_obs: Obs | None = None
        self._obs: list[Obs] = []
        self._steps: list[Step[Obs, npt.NDArray[Any]]] = []

    def read_env(self, env: object) -> None:
        """Reads the goal layout and ``compute_reward`` of ``env`` (the `border_py.base.EnvReader` hook).

        Raises:
            ValueError: ``env`` has no ``achieved_goal`` / ``desired_goal`` / observation parts of one goal
                shape, or no ``compute_reward`` (one line naming what is missing).
        """
        self._env = read_goal_env(env, type(self).__name__)

    def reset(self, init_obs: Obs) -> None:
        """Starts an episode from ``init_obs``, dropping an unfinished one.

        Raises:
            RuntimeError: `read_env` was never called.
        """
        if self._env is None:
            raise RuntimeError(f"{type(self).__name__}.reset before read_env(env) (SyncSampler calls it)")
        self._prev_obs = init_obs
        self._obs.clear()
        self._steps.clear()

    def process(self, step: Step[Obs, npt.NDArray[Any]]) -> list[Transition]:
        """Returns nothing during an episode; at its end, every transition of it, each followed by its
        relabelled copies.

        Raises:
            RuntimeError: ``reset`` was never called, or an ended episode's step carries no ``init_obs``.
            ValueError: the env's ``compute_reward`` does not take batches of goals.
        """
        obs = self._prev_obs
        if obs is None:
            raise RuntimeError(f"{type(self).__name__}.process called before reset(init_obs)")
        self._obs.append(obs)
        self._steps.append(step)
        if not step.is_done:
            self._prev_obs = step.obs
            return []
        if step.init_obs is None:
            raise RuntimeError(f"{type(self).__name__}: a step that ends an episode must carry init_obs")
        self._prev_obs = step.init_obs
        items = self._episode_items()
        self._obs.clear()
        self._steps.clear()
        return items

    def _episode_items(self) -> list[Transition]:
        assert self._env is not None  # reset checked it
        layout, compute_reward = self._env
        steps, k = self._steps, self.n_sampled_goal
        obs, next_obs = np.stack(self._obs), np.stack([s.obs for s in steps])
        acts = [np.asarray(s.act) for s in steps]
        picks = goal_steps(self.strategy, len(steps), k, episode_rng(obs, next_obs, np.stack(acts)))
        r_obs, r_next, r_rewards = relabel(
            obs, next_obs, [s.info for s in steps], picks, layout, compute_reward
        )
        items: list[Transition] = []
        for t, (step, act) in enumerate(zip(steps, acts, strict=True)):
            items.append(self._item(self._obs[t], act, step.obs, step.reward, step))
            items.extend(
                self._item(r_obs[j], act, r_next[j], float(r_rewards[j]), step)
                for j in range(t * k, (t + 1) * k)
            )
        return items

    def _item(
        self, obs: Obs, act: npt.NDArray[Any], next_obs: Obs, reward: float, step: Step[Obs, Any]
    ) -> Transition:
        """A transition with ``step``'s episode-end flags (a relabelled copy keeps the env's)."""
        return Transition(
            obs=obs,
            act=act,
            next_obs=next_obs,
            reward=reward,
            is_terminated=step.is_terminated,
            is_truncated=step.is_truncated,
            discount=self.gamma,
        )


@attrs.frozen(kw_only=True)
class HerStepProcessorConfig:
    """Config of `HerStepProcessor` (``type: her`` in an experiment file).

    Examples:
        >>> HerStepProcessorConfig(strategy="final", n_sampled_goal=1).build().strategy
        'final'
    """

    strategy: Strategy = attrs.field(default="future", validator=attrs.validators.in_(STRATEGIES))
    """Where relabelled goals come from: ``future`` (achieved later in the episode), ``final`` (at its end)
    or ``episode`` (anywhere in it)."""
    n_sampled_goal: int = attrs.field(default=4, validator=[attrs.validators.ge(1), attrs.validators.le(64)])
    """Per transition: how many relabelled copies are stored beside it (the paper's k; at most 64). The
    buffer holds ``1 + n_sampled_goal`` transitions per env step."""
    gamma: float = attrs.field(default=0.99, validator=[attrs.validators.ge(0.0), attrs.validators.le(1.0)])
    """Unitless, per env step: the discount factor the agents' TD targets use."""

    def build(self) -> HerStepProcessor:
        """Builds the step processor; the sampler hands it the env (`HerStepProcessor.read_env`)."""
        return HerStepProcessor(self.strategy, self.n_sampled_goal, self.gamma)

    def build_for(self, env: GoalEnv) -> HerStepProcessor:
        """Builds the step processor for ``env`` (outside a sampler).

        Raises:
            ValueError: ``env`` is not goal-conditioned (see `HerStepProcessor.read_env`).
        """
        processor = self.build()
        processor.read_env(env)
        return processor
