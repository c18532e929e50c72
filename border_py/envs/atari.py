"""``AtariEnv``: an Atari game of the Arcade Learning Environment behind the `Env`
protocol, with DeepMind's preprocessing, observations uint8 end to end.

It runs ale-py's own vector env (``ale_py.vector_env.AtariVectorEnv``, one sub-env) rather than
Gymnasium's ``AtariPreprocessing`` and ``FrameStackObservation`` wrappers, which step slower
(``benchmarks/RESULTS.md``). ale-py comes with
the ``atari`` extra (``pip install border_py[atari]``), and ships the game ROMs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.step import Step
from border_py.config import episode_limit
from border_py.envs.atari_fire import FireAfterLifeLoss
from border_py.envs.checks import checked_action
from border_py.envs.episode_start import checked_rng_state, checked_start
from border_py.envs.gymnasium import Act, SpaceInfo
from border_py.record import Record

Frames = npt.NDArray[np.uint8]
"""Atari observations: ``(stack, 84, 84)`` uint8 frame stacks, the newest frame last."""

_NO_RECORD = Record()


@attrs.frozen(kw_only=True)
class AtariEnvConfig:
    """Config of `AtariEnv`: DeepMind's Atari preprocessing (Mnih et al., 2015; Machado et al.,
    2018), as ale-py implements it.

    Each env step repeats the action for ``frame_skip`` frames and max-pools the last two, converts to
    84x84 grayscale and stacks the last ``stack`` of those; an episode starts with up to ``noop_max`` no-op
    steps. Frames before a game's first observation are zeros; an episode that ``episodic_life`` starts
    after a lost life carries the game's frames on.

    Examples:
        >>> AtariEnvConfig(game="breakout").evaluation().reward_clipping
        False
    """

    game: str = attrs.field(default="pong", validator=attrs.validators.min_len(1))
    """The ALE game, in ale-py's snake case (``pong``, ``breakout``, ``space_invaders``)."""
    frame_skip: int = attrs.field(default=4, validator=attrs.validators.gt(0))
    """In emulator frames per env step: each action is repeated this often."""
    stack: int = attrs.field(default=4, validator=attrs.validators.gt(0))
    """In frames: how many preprocessed frames one observation stacks."""
    noop_max: int = attrs.field(default=30, validator=attrs.validators.ge(0))
    """In env steps: the most no-op actions taken at an episode's start (a random number up to this)."""
    max_episode_frames: int = attrs.field(default=108_000, validator=episode_limit)
    """In emulator frames: truncate an episode after this many (108,000 frames = 30 minutes of play)."""
    repeat_action_probability: float = attrs.field(
        default=0.0, validator=[attrs.validators.ge(0.0), attrs.validators.le(1.0)]
    )
    """Unitless: sticky actions, the chance that the emulator repeats the previous action (0.25 in
    Machado et al.'s protocol; 0 in DQN Zoo's)."""
    episodic_life: bool = False
    """Terminate the episode when a life is lost (for training), the game going on with one life fewer, as
    SB3's ``EpisodicLifeEnv`` does (ale-py's ``life_loss_info``); ``fire_after_life_loss`` relaunches the
    ball after it, else the agent must. (ale-py's own ``episodic_life`` restarts the game at each lost
    life instead, measured with ale-py 0.12 on Breakout: an agent trained so never sees a later life,
    never learns to relaunch, and stalls in evaluation until the episode's frame limit.)"""
    fire_after_life_loss: bool = False
    """After a lost life, the game's next action is FIRE whatever the agent chose (in games with FIRE), as
    SB3's ``FireResetEnv`` under its ``EpisodicLifeEnv`` and CleanRL's Atari scripts do; ale-py presses FIRE
    when a game starts either way. It holds in evaluation too (it is the env's dynamics); ``False``: the
    agent relaunches the ball itself (Dopamine's and Machado et al.'s protocol)."""
    reward_clipping: bool = True
    """Learn from ``sign(reward)``; the ``env/episode_return`` record keeps the game's own score."""
    full_action_space: bool = False
    """All 18 actions instead of the game's minimal set."""

    def evaluation(self) -> AtariEnvConfig:
        """This config for evaluation: whole games (no episodic life) and raw rewards."""
        return attrs.evolve(self, episodic_life=False, reward_clipping=False)

    def build(self, seed: int) -> AtariEnv:
        """Makes the env; its first reset and its action space are seeded with ``seed``.

        Raises:
            ImportError: ale-py is not installed (the ``atari`` extra).
            ValueError: ale-py does not know ``game``.
        """
        return AtariEnv(self, seed)


def _ale_vector_env(config: AtariEnvConfig, num_envs: int) -> Any:
    """ale-py's vector env of ``num_envs`` copies of ``config``'s game, stepped on one thread.

    Raises:
        ImportError: ale-py is not installed (the ``atari`` extra).
        ValueError: ale-py does not know ``config.game``.
    """
    try:
        from ale_py import roms
        from ale_py.vector_env import AtariVectorEnv
    except ImportError as exc:
        raise ImportError("Atari envs need ale-py: pip install 'border_py[atari]'") from exc
    if config.game not in roms.get_all_rom_ids():
        raise ValueError(
            f"atari game {config.game!r} is not one of ale-py's games (snake case, e.g. 'pong', "
            "'ms_pacman', 'space_invaders')"
        )
    return AtariVectorEnv(
        config.game,
        num_envs=num_envs,
        num_threads=1,
        frameskip=config.frame_skip,
        stack_num=config.stack,
        noop_max=config.noop_max,
        max_num_frames_per_episode=config.max_episode_frames,
        repeat_action_probability=config.repeat_action_probability,
        episodic_life=False,
        life_loss_info=config.episodic_life,
        reward_clipping=False,  # clipped by border_py, so that the records keep the game's score
        full_action_space=config.full_action_space,
        autoreset_mode="SameStep",
    )


class AtariEnv(SpaceInfo):
    """An Atari game with uint8 frame-stack observations, terminated and truncated kept apart, automatic
    reset at an episode end and records of each episode's score and length.

    Training episodes after the first continue ale-py's own random state, which cannot be saved: a run
    resumed in mid-episode starts a new episode (with a
    `ResumeWarning`), while the agent, the buffer and the counters
    resume exactly. Evaluation episode ``i`` is reset with seed ``i``, so it is the same every time.

    Args:
        config: which game and how.
        seed: seeds the first reset and the action space.
    """

    def __init__(self, config: AtariEnvConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.name = f"atari:{config.game}"
        self.env: Any = _ale_vector_env(config, 1)
        self._fire = FireAfterLifeLoss(self.env, 1, config.fire_after_life_loss)
        self.action_space: gym.Space[Any] = self.env.single_action_space
        self.observation_space: gym.Space[Any] = self.env.single_observation_space
        self.action_space.seed(seed)
        self._obs_shape = tuple(self.observation_space.shape or ())
        self._seeded = False
        self._env_steps = 0
        self._episode_seed: int | None = None
        self._episode_start_steps = 0
        self._episode_return = 0.0
        self._episode_length = 0

    def _obs(self, batch: Any) -> Frames:
        obs: Frames = batch[0]
        if obs.shape != self._obs_shape or obs.dtype != np.uint8:
            raise ValueError(
                f"{self.name}: observation at env step {self._env_steps} is {obs.dtype} {obs.shape}, the "
                f"observation space declares uint8 {self._obs_shape}"
            )
        return obs

    def _start(self, obs: Any, seed: int | None) -> Frames:
        self._episode_seed, self._episode_start_steps = seed, self._env_steps
        self._episode_return, self._episode_length = 0.0, 0
        return self._obs(obs)

    def _reset(self, seed: int | None) -> Frames:
        obs, info = self.env.reset(seed=seed)
        self._fire.start(info)
        return self._start(obs, seed)

    def reset(self) -> Frames:
        """Starts an episode; the first call is seeded with the build seed, later ones continue ale-py's
        random state."""
        seed = None if self._seeded else self.seed
        self._seeded = True
        return self._reset(seed)

    def reset_with_index(self, ix: int) -> Frames:
        """Starts evaluation episode ``ix`` by resetting with seed ``ix``: the same episode every time."""
        self._seeded = True
        return self._reset(ix)

    def step(self, act: Act) -> tuple[Step[Frames, Act], Record]:
        """Steps the game; at an episode end it has reset itself, and the next episode's first observation
        is ``init_obs``.

        Raises:
            ValueError: ``act`` is not one of the game's actions.
        """
        a = checked_action(self.action_space, act, self.name, clip=False)
        obs, rewards, terminated, truncated, info = self.env.step(self._fire.actions(np.array([a])))
        self._fire.observe(info)
        self._env_steps += 1
        reward = float(rewards[0])
        self._episode_return += reward
        self._episode_length += 1
        if self.config.reward_clipping:
            reward = float(np.sign(reward))
        done = bool(terminated[0] or truncated[0])
        record, init_obs = _NO_RECORD, None
        if done:
            record = Record(
                {"env/episode_return": self._episode_return, "env/episode_length": self._episode_length}
            )
            init_obs = self._start(obs, None)
            # ale-py's final_obs of a game that goes on after a lost life is stale: its stack is obs itself.
            obs = obs if self._fire.lost[0] else info["final_obs"]
        step = Step(
            act=act,
            obs=self._obs(obs),
            reward=reward,
            is_terminated=bool(terminated[0]),
            is_truncated=bool(truncated[0]),
            info={},
            init_obs=init_obs,
        )
        return step, record

    def episode_start_state(self) -> dict[str, Any]:
        """The seed of the current episode's reset (``None`` when ale-py's random state started it), the
        env step count at its start and the action space's RNG state."""
        action_rng = self.action_space.np_random.bit_generator.state
        return {
            "seed": self._episode_seed,
            "env_steps": self._episode_start_steps,
            "action_space": action_rng,
        }

    def restore_episode_start(self, state: dict[str, Any]) -> None:
        """Makes the next ``reset`` start the episode of ``state`` again when it was seeded; otherwise the
        next ``reset`` starts a new one (and the sampler's replay check says so).

        Raises:
            ValueError: ``state`` is not what `episode_start_state` returns.
        """
        actions = self.action_space.np_random.bit_generator
        seed, env_steps = checked_start(state, self.name, ("action_space",))
        actions.state = checked_rng_state(actions, state["action_space"], "action_space", self.name)
        self.seed = self.seed if seed is None else seed
        self._seeded = seed is None
        self._env_steps = env_steps

    def close(self) -> None:
        """Closes the emulator."""
        self.env.close()


@attrs.frozen(kw_only=True)
class AtariVecEnvConfig:
    """Config of `AtariVecEnv`: ``num_envs`` copies of one Atari game.

    Examples:
        >>> AtariVecEnvConfig(env=AtariEnvConfig(game="pong"), num_envs=4).build(seed=0).num_envs
        4
    """

    env: AtariEnvConfig = attrs.field(factory=AtariEnvConfig)
    """The game and its preprocessing (each sub-env's)."""
    num_envs: int = attrs.field(default=4, validator=attrs.validators.gt(0))
    """How many games step together; the agent acts for all with one forward pass."""

    def build(self, seed: int) -> AtariVecEnv:
        """Makes the vector env; its first reset is seeded with ``seed``."""
        return AtariVecEnv(self, seed)

    def evaluation(self) -> AtariEnvConfig:
        """The evaluation env's config: one game, played whole, with raw rewards."""
        return self.env.evaluation()


class AtariVecEnv:
    """``num_envs`` Atari games behind the `VecEnv` protocol, stepped by ale-py on
    one thread: one call steps every game, and a policy acts for all of them with one forward pass, which
    costs less per observation than one at a time (``benchmarks/RESULTS.md``, Atari). Each step's
    ``info`` says its sub-env (``env_id``), so a `FrameStackStepProcessor` puts its items in a lane of the
    frame buffer of its own (``FrameReplayBufferConfig.streams = num_envs``).

    Args:
        config: the game and how many.
        seed: seeds the first reset and the action space.
    """

    def __init__(self, config: AtariVecEnvConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.name = f"atari:{config.env.game} x{config.num_envs}"
        self.env: Any = _ale_vector_env(config.env, config.num_envs)
        self._fire = FireAfterLifeLoss(self.env, config.num_envs, config.env.fire_after_life_loss)
        self.action_space: gym.Space[Any] = self.env.single_action_space
        self.action_space.seed(seed)
        n = config.num_envs
        self._returns, self._lengths = np.zeros(n), np.zeros(n, np.int64)
        self._infos = [{"env_id": i} for i in range(n)]

    @property
    def num_envs(self) -> int:
        """The number of games."""
        return self.config.num_envs

    def reset(self) -> list[Frames]:
        """Starts a game in every sub-env (seeded with the build seed)."""
        obs, info = self.env.reset(seed=self.seed)
        self._fire.start(info)
        self._returns[:], self._lengths[:] = 0.0, 0
        return list(obs)

    def step(self, acts: Sequence[Act]) -> tuple[list[Step[Frames, Act]], list[Record]]:
        """Steps every game; a game that ended has reset itself, its next first observation ``init_obs``.

        Raises:
            ValueError: an action is not one of the game's (naming the sub-env).
        """
        if len(acts) != self.num_envs:
            raise ValueError(f"{self.name}: {len(acts)} actions for {self.num_envs} sub-envs")
        checked = [
            checked_action(self.action_space, a, f"{self.name} sub-env {i}", False)
            for i, a in enumerate(acts)
        ]
        obs, rewards, terminated, truncated, info = self.env.step(self._fire.actions(np.array(checked)))
        self._fire.observe(info)
        self._returns += rewards
        self._lengths += 1
        clipped = np.sign(rewards) if self.config.env.reward_clipping else rewards
        steps, records = [], []
        for i in range(self.num_envs):
            done = bool(terminated[i] or truncated[i])
            if done:
                records.append(
                    Record(
                        {
                            "env/episode_return": float(self._returns[i]),
                            "env/episode_length": int(self._lengths[i]),
                        }
                    )
                )
                self._returns[i], self._lengths[i] = 0.0, 0
            steps.append(
                Step(
                    act=acts[i],
                    obs=info["final_obs"][i] if done and not self._fire.lost[i] else obs[i],
                    reward=float(clipped[i]),
                    is_terminated=bool(terminated[i]),
                    is_truncated=bool(truncated[i]),
                    info=self._infos[i],
                    init_obs=obs[i] if done else None,
                )
            )
        return steps, records

    def close(self) -> None:
        """Closes the emulators."""
        self.env.close()
