"""``FireAfterLifeLoss``: which games lost a life at the last step (their episode ends under
``episodic_life`` while the game goes on), and FIRE as such a game's next action for ``AtariEnvConfig``'s
``fire_after_life_loss`` (the part of SB3's ``FireResetEnv`` that acts inside a game; ale-py already
presses FIRE when a game starts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FireAfterLifeLoss"]


class FireAfterLifeLoss:
    """Tracks the lives of ``n`` games and, after one loses a life with the game going on, replaces that
    game's next action by FIRE: in that state every action relaunches the ball, so the agent's transition
    stays one of the env's (whatever it chose, the ball is launched), in training and evaluation alike.

    A game without FIRE in its action set, or ``enabled=False``, passes every action through.

    Args:
        env: an ``ale_py.vector_env.AtariVectorEnv`` (its ``ale`` names the game's action set).
        n: how many games it steps.
        enabled: the config's ``fire_after_life_loss``.
    """

    def __init__(self, env: Any, n: int, enabled: bool) -> None:
        from ale_py import Action

        actions = list(env.ale.get_action_set())
        self.fire = actions.index(Action.FIRE) if enabled and Action.FIRE in actions else None
        self.lives = np.zeros(n, np.int64)
        self.lost = np.zeros(n, np.bool_)
        """The games that lost a life at the last step and go on (ale-py did not reset them)."""

    def start(self, info: Mapping[str, Any]) -> None:
        """New games in every sub-env (``info`` of ale-py's reset): nothing pending."""
        self.lives = np.asarray(info["lives"], np.int64).copy()
        self.lost[:] = False

    def actions(self, acts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The actions to step: FIRE for each game that lost a life at the previous step."""
        if self.fire is None or not self.lost.any():
            return acts
        out = acts.copy()
        out[self.lost] = self.fire
        return out

    def observe(self, info: Mapping[str, Any]) -> None:
        """After a step (``info`` of ale-py's step): a game with fewer lives than before lost one and goes
        on; a game over resets to a new game with its full lives, which is not a loss."""
        lives = np.asarray(info["lives"], np.int64)
        self.lost = lives < self.lives
        self.lives = lives.copy()
