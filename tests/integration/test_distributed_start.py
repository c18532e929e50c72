"""Asynchronous actors at their start: they know the env ids the driver registered, and actors that cannot
be built end the run with one error naming the cause."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import pytest
from gymnasium.envs.classic_control import CartPoleEnv

from border_py import BufferedRecorder, GymEnvConfig
from border_py.trainer.interrupts import ExperienceSourceError
from tests.integration.test_distributed import ENV, _evaluator, _scalars, _trainer, make_agent

pytestmark = pytest.mark.usefixtures("ray_cluster")


class _UsersCartPole(CartPoleEnv):
    """A user's env class, registered under a bare id by the test process only."""


def _users_cartpole(**kwargs: Any) -> CartPoleEnv:
    return _UsersCartPole(**kwargs)


def test_an_env_id_registered_by_the_driver_alone_reaches_the_actors(tmp_path: Path) -> None:
    """The actors started with Gymnasium's own ids only: every one died on 'Environment doesn't exist'
    and the run ended in a traceback."""
    import gymnasium as gym

    gym.register(id="BorderPyUsersCart-v0", entry_point=_users_cartpole, max_episode_steps=200)
    try:
        env = GymEnvConfig(name="BorderPyUsersCart-v0")
        recorder = BufferedRecorder()
        result = _trainer(tmp_path, env=env).train(make_agent(0), make_agent, recorder, _evaluator())
    finally:
        del gym.registry["BorderPyUsersCart-v0"]
    assert result.opt_steps == 400
    assert _scalars(recorder, "async/actor_restarts")[-1] == 0.0


@attrs.frozen
class _ActorsCannotBuild:
    """CartPole in the test process; in any other (an actor) its build raises."""

    driver: int

    def build(self, seed: int) -> Any:
        if os.getpid() != self.driver:
            raise ValueError("no display in the actors")
        return ENV.build(seed)


def test_actors_that_cannot_start_end_the_run_with_one_error_naming_the_cause(tmp_path: Path) -> None:
    """It was Ray's ActorDiedError, a traceback of Ray's frames."""
    trainer = _trainer(tmp_path, env=_ActorsCannotBuild(os.getpid()), max_restarts=0)
    with pytest.raises(
        ExperienceSourceError, match=r"^the actors could not start: ValueError: no display in the actors$"
    ):
        trainer.train(make_agent(0), make_agent, BufferedRecorder(), _evaluator())
