"""``DefaultEvaluator``: the mean return of n deterministic evaluation episodes, played side by side.

Episode ``i`` always starts with ``env.reset_with_index(i)``, so a greedy policy always gets the same score.
How the episodes are played does not change it:

- **acting**: an agent that states its greedy policy (``greedy_policy()``, every MLP agent of border_py)
  on the CPU acts through that policy in numpy (`border_py.export.numpy_policy`: the policy `border-py
  export` writes, taken in memory at the start of each evaluation). Its forward pass is batch-invariant:
  an observation's action is the same bits whatever other observations share its batch. Other policies
  (a CNN encoder, a GPU agent, a user's own) act through their own ``sample``; a policy with memory
  (`border_py.base.RecurrentPolicy`) plays one episode after another through ``sample``, its memory
  cleared at each episode's start;
- **side by side**: with an env factory and numpy acting, up to ``envs`` episodes run at once, each in an
  env of its own, with one batched forward a step for the episodes still running. Each episode's
  actions, and so its return, are those of playing the episodes one after another.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, Generic, cast

import attrs
import numpy as np

from border_py.base.env import Env
from border_py.base.policy import Policy, RecurrentPolicy
from border_py.base.typevars import A, O
from border_py.record import Record

Actor = Callable[[Sequence[Any]], Sequence[Any]]
"""Observations of the running episodes -> their actions."""


@attrs.frozen(kw_only=True)
class DefaultEvaluatorConfig:
    """Config of `DefaultEvaluator`."""

    n_episodes: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """In episodes: how many evaluation episodes make one score."""
    envs: int = attrs.field(default=10, validator=attrs.validators.gt(0))
    """In envs: how many episodes run at once, each in an env of its own (1: one after another). The
    returns do not depend on it; only the number of envs built does (and so the time and memory). Side by
    side needs ``build``'s ``make_env`` (the run layer gives it); without it episodes run one after
    another."""
    numpy_acting: bool = True
    """Act through the agent's greedy policy in numpy where it states one (on the CPU); side by side needs
    it. ``False``: through the agent's own ``sample``, one episode after another."""

    def build(
        self, env: Env[O, A], make_env: Callable[[], Env[O, A]] | None = None
    ) -> DefaultEvaluator[O, A]:
        """Builds an evaluator over ``env`` (an env of its own, not the training env); ``make_env`` builds
        more envs of the same config and seed for the episodes played side by side."""
        return DefaultEvaluator(
            env, self.n_episodes, make_env=make_env, envs=self.envs, numpy_acting=self.numpy_acting
        )


class GreedyPolicyMismatch(UserWarning):
    """An agent's ``greedy_policy()`` acts otherwise than its own eval-mode ``sample``: the evaluation
    acts through ``sample`` instead (slower, but the agent's own actions)."""


def numpy_actor(policy: object) -> Actor | None:
    """Batched, batch-invariant acting through ``policy``'s greedy policy in numpy, or ``None`` where it
    states none that numpy runs (no ``greedy_policy``, not on the CPU, a CNN encoder, weights that are not
    finite: it then acts through its own ``sample``, as before), or whose actions are drawn (an agent in
    train mode).

    The greedy policy is trusted only once it agrees with the policy's own eval-mode ``sample`` on the
    first observations it is given (the same discrete actions; box actions within float rounding, once
    both are clipped to the box): an agent whose ``greedy_policy()`` describes other arithmetic than its
    acting is evaluated through ``sample``, with a `GreedyPolicyMismatch` warning naming it.
    """
    if not hasattr(policy, "greedy_policy") or isinstance(policy, RecurrentPolicy):
        return None  # no torch import for a policy that states none; a memory needs its own sample
    if getattr(policy, "is_train", lambda: False)():  # drawn actions: the greedy policy acts otherwise
        return None
    from border_py.export.exporters import Exportable, numpy_policy_of

    if not isinstance(policy, Exportable) or policy.device.type != "cpu":
        return None
    try:
        greedy = numpy_policy_of(policy)
    except (TypeError, ValueError):
        return None
    # Pixels (frames, or a dict's images) are evaluated through the agent's own torch CNN: numpy's
    # convolutions are the slower.
    if greedy.conv is not None or greedy.inputs is not None:
        return None
    sample = cast("Policy[Any, Any]", policy).sample
    trusted: list[bool] = []  # empty until the first call has compared

    def act(obs: Sequence[Any]) -> Sequence[Any]:
        acts = greedy.act(np.stack(obs).reshape(len(obs), -1))  # an observation is a row, whatever its shape
        if not trusted:
            trusted.append(_agree(greedy, obs, acts, [sample(o) for o in obs]))
            if not trusted[0]:
                warnings.warn(
                    f"{type(policy).__name__}.greedy_policy() acts otherwise than its eval-mode sample(): "
                    "evaluating through sample() instead",
                    GreedyPolicyMismatch,
                    stacklevel=2,
                )
        if not trusted[0]:
            return [sample(o) for o in obs]
        return [acts[i, ...] for i in range(len(obs))]  # [i, ...]: 0-d arrays, as an agent's sample gives

    return act


def _agree(greedy: Any, obs: Sequence[Any], acts: Any, sampled: Sequence[Any]) -> bool:
    """Whether the greedy policy's actions ``acts`` on ``obs`` are the agent's own (``sampled``): a
    discrete action may differ where the two actions' values are equal within `TORCH_RTOL` (a tie that
    float32 rounding breaks either way: an untrained Q-network's, often)."""
    from border_py.export.numpy_policy import TORCH_RTOL

    own = np.stack([np.asarray(a) for a in sampled]).reshape(acts.shape)
    if greedy.discrete:
        differ = np.flatnonzero(own != acts)
        if differ.size == 0:
            return True
        values = greedy.values(np.stack([obs[int(i)] for i in differ]).reshape(differ.size, -1))
        rows = np.arange(differ.size)
        gap = np.abs(values[rows, acts[differ]] - values[rows, own[differ]])
        return bool((gap <= TORCH_RTOL * np.maximum(1.0, np.abs(values).max(axis=1))).all())
    own = np.clip(own, greedy.low, greedy.high)
    return bool(np.allclose(own, acts, rtol=1e-4, atol=1e-4 * float(np.max(greedy.high - greedy.low))))


class DefaultEvaluator(Generic[O, A]):
    """Runs episodes ``0 .. n_episodes - 1`` (episode ``i`` starts with ``reset_with_index(i)``) and scores
    the policy by the mean return (see the module doc for how they are played).

    The caller puts the agent in eval mode first (the trainer does), and closes the evaluator when done
    (the envs it built; ``env`` stays the caller's).

    Args:
        env: the evaluation env (the one after another episodes, and the first of the side by side ones).
        n_episodes: episodes per evaluation.
        make_env: builds another env of ``env``'s config and seed (side by side needs it).
        envs: how many episodes at once, at most.
        numpy_acting: act through the policy's greedy policy in numpy where it states one.

    Examples:
        >>> from border_py.testing import CountingEnv, ConstantPolicy
        >>> score, record = DefaultEvaluator(CountingEnv(episode_length=3), 2).evaluate(ConstantPolicy(0))
        >>> score, record["eval/episode_length"]
        (3.0, 3.0)
    """

    def __init__(
        self,
        env: Env[O, A],
        n_episodes: int,
        make_env: Callable[[], Env[O, A]] | None = None,
        envs: int = 10,
        numpy_acting: bool = True,
    ) -> None:
        if n_episodes < 1 or envs < 1:
            raise ValueError(f"n_episodes and envs must be >= 1, got {n_episodes} and {envs}")
        self.env = env
        self.n_episodes = n_episodes
        self._make_env = make_env
        self._envs = envs
        self._numpy_acting = numpy_acting
        self._built: list[Env[O, A]] = []

    def evaluate(self, policy: Policy[O, A]) -> tuple[float, Record]:
        """Returns the mean return, and a record of ``eval/episode_return`` (mean, min, max) and length."""
        returns, lengths = self.episodes(policy)
        score = float(np.mean(returns))
        record = Record(
            {
                "eval/episode_return": score,
                "eval/episode_return_min": min(returns),
                "eval/episode_return_max": max(returns),
                "eval/episode_length": float(np.mean(lengths)),
            }
        )
        return score, record

    def episodes(self, policy: Policy[O, A]) -> tuple[list[float], list[int]]:
        """Each episode's return and length, in episode order."""
        actor = numpy_actor(policy) if self._numpy_acting else None
        if actor is None:
            started = policy.start_episodes if isinstance(policy, RecurrentPolicy) else None
            return self._play([self.env], lambda obs: [policy.sample(o) for o in obs], started)
        width = min(self._envs, self.n_episodes) if self._make_env is not None else 1
        return self._play(self._side_by_side(width), actor)

    def _side_by_side(self, width: int) -> list[Env[O, A]]:
        while len(self._built) < width - 1:
            assert self._make_env is not None
            self._built.append(self._make_env())
        return [self.env, *self._built[: width - 1]]

    def _play(
        self, envs: list[Env[O, A]], actor: Actor, started: Callable[[Sequence[bool]], None] | None = None
    ) -> tuple[list[float], list[int]]:
        """Plays every episode, each env taking the next episode index when its episode ends; with one
        env, ``started`` is told of each episode's start (a recurrent policy's)."""
        returns, lengths = [0.0] * self.n_episodes, [0] * self.n_episodes
        running: list[tuple[int, Env[O, A], O]] = []  # (episode, env, observation)
        queued = iter(range(self.n_episodes))
        for env, ix in zip(envs, queued, strict=False):  # no more envs than episodes
            running.append((ix, env, env.reset_with_index(ix)))
        if started is not None:
            started((True,))
        while running:
            acts = actor([obs for _, _, obs in running])
            carried_on = []
            for (ix, env, _), act in zip(running, acts, strict=True):
                step, _ = env.step(act)
                returns[ix] += step.reward
                lengths[ix] += 1
                if not step.is_done:
                    carried_on.append((ix, env, step.obs))
                elif (nxt := next(queued, None)) is not None:
                    carried_on.append((nxt, env, env.reset_with_index(nxt)))
                    if started is not None:
                        started((True,))
            running = carried_on
        return returns, lengths

    def close(self) -> None:
        """Closes the envs this evaluator built (not ``env``)."""
        built, self._built = self._built, []
        for env in built:
            env.close()
