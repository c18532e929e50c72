"""``Policy``: maps an observation to an action; ``BatchPolicy`` acts for many observations at once;
``RecurrentPolicy`` remembers the observations of each episode, and is told where episodes start;
``EpisodicNoise`` explores with a noise process that starts again with each episode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from border_py.base.typevars import A_co, O_contra


class Policy(Protocol[O_contra, A_co]):
    """Anything that acts.

    Driven as ``act = policy.sample(obs); env.step(act)``. An agent in eval mode is a greedy policy.
    """

    def sample(self, obs: O_contra) -> A_co:
        """Returns the action for ``obs``."""
        ...


@runtime_checkable
class BatchPolicy(Protocol[O_contra, A_co]):
    """A policy that acts for the observations of a vector env in one call (one network forward for
    all of them). `sample_all` falls back to ``sample`` per observation for other policies."""

    def sample(self, obs: O_contra) -> A_co:
        """Returns the action for ``obs``."""
        ...

    def sample_batch(self, obs: Sequence[O_contra]) -> Sequence[A_co]:
        """Returns one action per observation, as ``[sample(o) for o in obs]`` would (the same
        distribution; the random draws may be ordered differently)."""
        ...


@runtime_checkable
class RecurrentPolicy(Protocol):
    """A policy with memory (an LSTM's hidden state, recurrent PPO's): its actions depend on the
    observations of the episode so far, one memory per lane (a vector env's sub-env, an evaluation's
    episode). Whoever drives it says where episodes start: the sampler, the evaluator, video and
    ``load_policy`` call `start_episodes` before a lane's first observation of each episode.

    A policy in train mode and in eval mode keeps separate memories, so an evaluation in the middle of a
    rollout leaves the rollout's memory as it was.
    """

    def start_episodes(self, starts: Sequence[bool]) -> None:
        """Clears the memory of the lanes flagged in ``starts`` (one flag per lane, in the order of the
        observations ``sample_batch`` takes; one flag for ``sample``): their next observation is the first
        of an episode. Called with every flag set, it (re)starts all lanes, and sets how many there are."""
        ...


@runtime_checkable
class EpisodicNoise(Protocol):
    """A policy whose train-mode exploration is a process with a state (TD3's Ornstein-Uhlenbeck noise),
    which starts again at each episode's start, lane by lane, as Stable-Baselines3 resets its action noise
    when an episode ends. Not a memory: its greedy actions do not depend on it, and evaluation never calls
    it."""

    def start_noise(self, starts: Sequence[bool]) -> None:
        """Starts the noise again in the lanes flagged in ``starts`` (as `RecurrentPolicy.start_episodes`
        counts lanes); with every flag set, in all lanes, and sets how many there are."""
        ...


def start_episodes(policy: object, starts: Sequence[bool]) -> None:
    """``policy.start_episodes(starts)`` where ``policy`` is a `RecurrentPolicy`, and
    ``policy.start_noise(starts)`` where it is an `EpisodicNoise`; nothing otherwise.

    Examples:
        >>> start_episodes(object(), [True])  # a policy without memory: nothing to clear
    """
    if isinstance(policy, RecurrentPolicy):
        policy.start_episodes(starts)
    if isinstance(policy, EpisodicNoise):
        policy.start_noise(starts)


def sample_all(policy: Policy[O_contra, A_co], obs: Sequence[O_contra]) -> Sequence[A_co]:
    """``policy.sample_batch(obs)`` when the policy has it, else ``[policy.sample(o) for o in obs]``.

    Examples:
        >>> class Double:
        ...     def sample(self, obs: int) -> int:
        ...         return 2 * obs
        >>> list(sample_all(Double(), [1, 2]))
        [2, 4]
    """
    if isinstance(policy, BatchPolicy):
        return policy.sample_batch(obs)
    return [policy.sample(o) for o in obs]
