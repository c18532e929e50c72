"""``Policy``: maps an observation to an action; ``BatchPolicy`` acts for many observations at once."""

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
