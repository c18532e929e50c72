"""``Env``: the environment protocol."""

from __future__ import annotations

from typing import Any, Protocol

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

    For checkpoints, an env tells how to start its current episode again; the sampler keeps the episode's
    actions and replays them on resume::

        state = env.episode_start_state()     # saved with the checkpoint
        ...
        env.restore_episode_start(state)      # in the resumed process
        obs = env.reset()                     # the same first observation as the saved episode's
        for act in actions_so_far: env.step(act)
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

    def episode_start_state(self) -> Any:
        """What :meth:`restore_episode_start` needs (picklable): the RNG states and counters as they were
        just before the current episode's reset."""
        ...

    def restore_episode_start(self, state: Any) -> None:
        """Rewinds to ``state`` so that the next ``reset`` starts the saved episode again, identically."""
        ...

    def close(self) -> None:
        """Releases the env's resources."""
        ...
