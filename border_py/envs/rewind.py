"""How each sub-env of a Gymnasium vector env started its current episode, recorded where the sub-env
lives, so that a resumed run can start that episode again and replay its actions
(`GymVecEnv.restart_episodes`).

With ``AutoresetMode.SAME_STEP`` a sub-env resets inside the vector step (in a worker process in ``async``
mode), out of the sampler's sight. `record_episode_starts`, applied to each sub-env as it is made
(``gymnasium.make_vec(..., wrappers=[record_episode_starts])``), puts in front of its ``reset`` one that
first notes the seed, or the RNG state a seedless reset draws from. The vector env reaches the notes and
the replay through ``VectorEnv.call`` and ``set_attr``, which work alike in both modes.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from border_py.envs.episode_start import checked_rng_state

START = "border_episode_start"
"""The sub-env's method returning how its current episode started: ``{"seed", "np_random"}``."""
REPLAY = "border_replay"
"""The sub-env's method that starts the episode of its `ORDER` again and replays the order's actions."""
ORDER = "border_replay_order"
"""The sub-env's attribute holding ``(episode start, actions, name in errors)`` for its next `REPLAY` (set
per sub-env with ``VectorEnv.set_attr``: ``call`` hands every sub-env the same arguments)."""

Replayed = tuple[Any, list[tuple[Any, float, bool, bool]]]
"""A replay's first observation and, per action, ``(obs, reward, terminated, truncated)``."""


class _EpisodeStarts:
    """Stands in front of one sub-env's ``reset`` and replays its episodes."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        self._env = env
        self._reset = env.reset
        self._start: dict[str, Any] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        # A seedless reset draws from the env's RNG: its state now is what starts this episode again.
        rng = None if seed is not None else self._env.unwrapped.np_random.bit_generator.state
        self._start = {"seed": seed, "np_random": rng}
        return self._reset(seed=seed, options=options)

    def start(self) -> dict[str, Any] | None:
        return self._start

    def replay(self) -> Replayed:
        """Starts the episode of `ORDER` again and takes its actions; stops after a step that ends the
        episode (a replay that does so did not reproduce it)."""
        env = self._env
        start, actions, name = getattr(env, ORDER)
        setattr(env, ORDER, None)
        if start["np_random"] is not None:
            rng = env.unwrapped.np_random.bit_generator
            rng.state = checked_rng_state(rng, start["np_random"], "np_random", name)
        first, _ = self.reset(seed=start["seed"])
        steps = []
        for act in actions:
            obs, reward, terminated, truncated, _ = env.step(act)
            steps.append((obs, float(reward), bool(terminated), bool(truncated)))
            if terminated or truncated:
                break
        return first, steps


def record_episode_starts(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    """Makes ``env`` (one sub-env) note how each of its episodes starts, and able to replay one: a
    wrapper function for ``gymnasium.make_vec``. Returns ``env`` itself."""
    starts = _EpisodeStarts(env)
    # Attributes of this one object, not a gymnasium.Wrapper: a wrapper would add a Python call to every
    # step, this costs one RNG-state read per episode.
    setattr(env, "reset", starts.reset)  # noqa: B010  # mypy refuses assigning to a method
    setattr(env, START, starts.start)
    setattr(env, REPLAY, starts.replay)
    setattr(env, ORDER, None)
    return env
