"""Atari's episodic life: a lost life ends a training episode and the game goes on, as in SB3's
``EpisodicLifeEnv``; an evaluation plays whole games."""

from __future__ import annotations

import numpy as np

from border_py.envs import AtariEnvConfig


def _episode_starts(config: AtariEnvConfig, n_steps: int) -> list[bool]:
    """For each episode end within ``n_steps`` of seeded random play (the same actions for every config):
    whether the next episode's first observation carries the game's earlier frames (the game goes on)
    rather than a new game's blank ones."""
    env = config.build(seed=0)
    first = env.reset()
    assert not first[:3].any()  # a new game's frame stack starts with blank frames
    actions = np.random.default_rng(0).integers(0, 4, n_steps)
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
