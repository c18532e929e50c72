"""``Env``: the environment protocol."""

from __future__ import annotations

from typing import Protocol

from border_py.base.step import Step
from border_py.base.typevars import A, O_co
from border_py.record import Record


class Env(Protocol[O_co, A]):
    """An environment that resets itself at the end of an episode.

    The sampler drives it like this::

        obs = env.reset()
        while training:
            step, record = env.step(policy.sample(obs))
            obs = step.init_obs if step.is_done else step.obs

    ``step`` returns the final observation of an ended episode in ``Step.obs`` and the first observation
    of the next episode in ``Step.init_obs``, so no transition is lost at an episode boundary. Its record
    carries ``env/episode_return`` and ``env/episode_length`` when an episode ended.
    """

    def reset(self) -> O_co:
        """Starts a new episode and returns its first observation."""
        ...

    def reset_with_index(self, ix: int) -> O_co:
        """Starts evaluation episode ``ix``: the same ``ix`` always gives the same episode."""
        ...

    def step(self, act: A) -> tuple[Step[O_co, A], Record]:
        """Applies ``act``; returns the step and a record (empty unless an episode ended)."""
        ...

    def close(self) -> None:
        """Releases the env's resources."""
        ...
