"""``Env``: the environment protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

from border_py.base.step import Step
from border_py.base.typevars import A, O, O_co
from border_py.record import Record


class Env(Protocol[O_co, A]):
    """An environment that resets itself at the end of an episode.

    The sampler drives it like this:

        obs = env.reset()
        while training:
            step, record = env.step(policy.sample(obs))
            obs = step.init_obs if step.is_done else step.obs

    ``step`` returns the final observation of an ended episode in ``Step.obs`` and the first observation
    of the next episode in ``Step.init_obs``, so no transition is lost at an episode boundary. Its record
    carries ``env/episode_return`` and ``env/episode_length`` when an episode ended.

    For checkpoints, an env tells how to start its current episode again; the sampler keeps the episode's
    actions and replays them on resume:

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
        """What `restore_episode_start` needs, as plain data and numpy arrays of numbers (it is saved in
        a checkpoint's JSON trainer state): the RNG states and counters as they were
        just before the current episode's reset."""
        ...

    def restore_episode_start(self, state: Any) -> None:
        """Rewinds to ``state`` so that the next ``reset`` starts the saved episode again, identically."""
        ...

    def close(self) -> None:
        """Releases the env's resources."""
        ...


@runtime_checkable
class VecEnv(Protocol[O_co, A]):
    """``num_envs`` environments stepped together, each resetting itself at the end of its episodes.

    Observations and actions are those of one sub-env (a list of ``num_envs`` of them), so the step
    processors and replay buffers of a single `Env` work unchanged; the sampler runs one step
    processor per sub-env and pushes ``num_envs`` items per call:

        obs = env.reset()                               # num_envs observations
        while training:
            steps, records = env.step(policy.sample_batch(obs))
            obs = [s.init_obs if s.is_done else s.obs for s in steps]

    Each `Step` follows the `Env` rules: at an episode end ``obs`` is the
    final observation and ``init_obs`` the first of the next episode (a *same-step* reset). ``records``
    holds one record per episode that ended in this step.

    A resumed run starts new episodes in its sub-envs, unless it is a `RewindableVecEnv`.
    """

    @property
    def num_envs(self) -> int:
        """The number of sub-envs."""
        ...

    def reset(self) -> Sequence[O_co]:
        """Starts an episode in every sub-env and returns their first observations."""
        ...

    def step(self, acts: Sequence[A]) -> tuple[Sequence[Step[O_co, A]], Sequence[Record]]:
        """Applies ``acts[i]`` to sub-env ``i``; returns one step per sub-env and a record per ended
        episode."""
        ...

    def close(self) -> None:
        """Releases the envs' resources."""
        ...


@runtime_checkable
class RewindableVecEnv(VecEnv[O_co, A], Protocol[O_co, A]):
    """A vector env that can start its sub-envs' current episodes again, for an exact resume. The
    sampler keeps each sub-env's actions since its episode started, and:

        state = env.episode_start_state()             # saved with the checkpoint, with the actions
        ...
        replayed = env.restart_episodes(state, actions)    # in the resumed process
        for first_obs, steps in replayed: ...         # each sub-env's episode again, step by step
    """

    @property
    def can_rewind(self) -> bool:
        """Whether `restart_episodes` can (the sampler keeps no actions for an env that cannot)."""
        ...

    def episode_start_state(self) -> Any:
        """How each sub-env's current episode started and the env's own counters, as plain data and numpy
        arrays of numbers (it is saved in a checkpoint's JSON trainer state)."""
        ...

    def restart_episodes(
        self, state: Any, actions: Sequence[Sequence[A]]
    ) -> Sequence[tuple[O_co, Sequence[Step[O_co, A]]]]:
        """Starts each sub-env's episode of ``state`` again and takes ``actions[i]`` in sub-env ``i``;
        returns, per sub-env, the episode's first observation and the replayed steps (stopping after one
        that ends the episode)."""
        ...


AnyEnv: TypeAlias = Env[O, A] | VecEnv[O, A]
"""What a trainer trains in: an env or a vector env with observations ``O`` and actions ``A``."""
