"""Atari's lives: a lost life ends a training episode and the game goes on, as in SB3's ``EpisodicLifeEnv``;
FIRE relaunches the ball after it where the config says so, as SB3's ``FireResetEnv`` does; an evaluation
plays whole games."""

from __future__ import annotations

import attrs
import numpy as np

from border_py.envs import AtariEnvConfig, AtariVecEnvConfig


def _episode_starts(config: AtariEnvConfig, n_steps: int, never_fire: bool = False) -> list[bool]:
    """For each episode end within ``n_steps`` of seeded random play (the same actions for every config;
    ``never_fire``: only LEFT and RIGHT, in turns of 7 steps):
    whether the next episode's first observation carries the game's earlier frames (the game goes on)
    rather than a new game's blank ones."""
    env = config.build(seed=0)
    first = env.reset()
    assert not first[:3].any()  # a new game's frame stack starts with blank frames
    actions = np.random.default_rng(0).integers(0, 4, n_steps)
    if never_fire:
        actions = np.where(np.arange(n_steps) // 7 % 2 == 0, 2, 3)
    goes_on = []
    for act in actions:
        step, _ = env.step(np.asarray(act))
        if step.is_terminated or step.is_truncated:
            assert step.init_obs is not None
            goes_on.append(bool(step.init_obs[:3].any()))
    env.close()
    return goes_on


def test_a_lost_life_ends_a_training_episode_and_the_game_goes_on() -> None:
    """Breakout has 5 lives: the first four lost ones end an episode and the game continues with the
    agent's own frames (ale-py's ``episodic_life`` would restart the game each time, so an agent never saw a
    later life); the fifth ends the game."""
    goes_on = _episode_starts(AtariEnvConfig(game="breakout", episodic_life=True), 1_500)
    assert len(goes_on) >= 10
    assert goes_on[:10] == [True, True, True, True, False] * 2


def test_an_evaluation_plays_whole_games() -> None:
    """The same play without episodic life (what evaluation uses) ends an episode only at the game's end."""
    config = AtariEnvConfig(game="breakout", episodic_life=True).evaluation()
    goes_on = _episode_starts(config, 1_500)
    assert goes_on
    assert not any(goes_on)


def test_without_fire_after_a_lost_life_the_ball_waits_for_the_agent() -> None:
    """An agent that never presses FIRE: ale-py launches the first ball of a game itself, and after the
    first lost life nothing happens any more; with ``fire_after_life_loss`` every life is played."""
    config = AtariEnvConfig(game="breakout", episodic_life=True)
    assert _episode_starts(config, 800, never_fire=True) == [True]
    fired = attrs.evolve(config, fire_after_life_loss=True)
    goes_on = _episode_starts(fired, 800, never_fire=True)
    assert goes_on[:5] == [True, True, True, True, False]
    assert _episode_starts(fired.evaluation(), 800, never_fire=True)[:1] == [False]


def test_fire_after_a_lost_life_in_the_vector_env_serves_each_game() -> None:
    """Two games, the agent never pressing FIRE: with the option each game plays through all its lives to
    a game over; without it none does."""
    for fire, expected in ((True, True), (False, False)):
        game = AtariEnvConfig(game="breakout", fire_after_life_loss=fire)
        env = AtariVecEnvConfig(env=game, num_envs=2).build(seed=0)
        env.reset()
        game_over = np.zeros(2, np.bool_)
        for t in range(600):
            steps, _ = env.step([np.asarray(2 if (t // 7 + i) % 2 else 3) for i in range(2)])
            game_over |= [s.is_terminated for s in steps]
        env.close()
        assert game_over.tolist() == [expected] * 2, fire


def test_a_lost_lifes_last_observation_is_the_game_shifted_by_one_frame() -> None:
    """At a lost life the game goes on, so the episode's last observation is the previous one shifted by one
    frame (ale-py's ``final_obs`` is stale there), and the next episode starts from that same stack."""
    env = AtariEnvConfig(game="breakout", episodic_life=True).build(seed=0)
    prev = env.reset()
    ends = 0
    for act in np.random.default_rng(1).integers(0, 4, 400):
        step, _ = env.step(np.asarray(act))
        assert np.array_equal(step.obs[:-1], prev[1:])
        if step.is_done:
            ends += 1
            assert step.init_obs is not None
            prev = step.init_obs
        else:
            prev = step.obs
    env.close()
    assert ends >= 4


def test_in_the_vector_env_too() -> None:
    """The same in ale-py's vector env of two games: each game's stacks shift by one frame across its lost
    lives."""
    env = AtariVecEnvConfig(env=AtariEnvConfig(game="breakout", episodic_life=True), num_envs=2).build(seed=0)
    prev = env.reset()
    ends = 0
    for acts in np.random.default_rng(1).integers(0, 4, (300, 2)):
        steps, _ = env.step([np.asarray(a) for a in acts])
        for i, step in enumerate(steps):
            assert np.array_equal(step.obs[:-1], prev[i][1:]), i
            ends += step.is_done
            prev[i] = step.init_obs if step.init_obs is not None else step.obs
    env.close()
    assert ends >= 4
