"""A vector env's resume: each sub-env's unfinished episode is started again from its saved seed or RNG
state and its actions replayed (``mode: sync`` and ``async``), so the resumed sampler pushes what the
uninterrupted one does; where that cannot be, a `ResumeWarning` says the sub-envs start new episodes."""

from __future__ import annotations

from typing import Any, Literal

import gymnasium as gym
import numpy as np
import pytest

from border_py import GymVecEnv, GymVecEnvConfig, NStepStepProcessor, ResumeWarning, SyncSampler, Transition
from border_py.record import Record
from border_py.trainer.state import decode, encode
from tests.scripted_actions import ScriptedActions

N = 3


def _scripted(calls: int, start: int = 0) -> ScriptedActions:
    """Call ``k`` takes the ``k``-th row of actions drawn once from a seeded RNG (random play: CartPole's
    episodes end after about 20 steps, at different steps in each sub-env)."""
    return ScriptedActions(np.random.default_rng(7).integers(0, 2, (calls, N)), start)


class _Kept:
    def __init__(self) -> None:
        self.items: list[tuple[Any, ...]] = []

    def push(self, t: Transition) -> None:
        self.items.append(
            (t.obs.tolist(), int(t.act), t.next_obs.tolist(), t.reward, t.discount, t.is_truncated)
        )

    def __len__(self) -> int:
        return len(self.items)


def _sampler(mode: Literal["sync", "async"] = "sync") -> SyncSampler[Any, Any, Transition]:
    env = GymVecEnvConfig(name="CartPole-v1", num_envs=N, mode=mode).build(seed=3)
    return SyncSampler(env, [NStepStepProcessor(n_steps=3, gamma=0.9) for _ in range(N)])


def _sample(
    sampler: SyncSampler[Any, Any, Transition], policy: ScriptedActions, calls: int
) -> tuple[_Kept, list[Record]]:
    kept = _Kept()
    records: list[Record] = []
    for _ in range(calls):
        records += sampler.sample_and_push(policy, kept)
    return kept, records


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("at", [5, 47], ids=["first-episodes", "later-episodes"])
def test_each_sub_envs_episode_is_replayed_so_the_resumed_sampler_pushes_what_the_whole_one_does(
    mode: Literal["sync", "async"], at: int
) -> None:
    """At call 5 every sub-env is in its seeded first episode; at 47 each is in a later one, started from
    its RNG. An n-step processor's pending rewards and each episode's return and length come back too."""
    calls = 90
    whole = _sampler(mode)
    whole_items, whole_records = _sample(whole, _scripted(calls), calls)

    first = _sampler(mode)
    first_items, first_records = _sample(first, _scripted(calls), at)
    state = decode(encode(first.state_dict()))  # as through trainer_state.json
    assert len(state["actions"]) == N
    assert any(state["actions"])
    assert state["episode_start"]["env_steps"] == at * N
    first.env.close()

    resumed = _sampler(mode)
    resumed.load_state_dict(state)
    assert isinstance(resumed.env, GymVecEnv)
    assert resumed.env.episode_start_state()["env_steps"] == at * N
    rest_items, rest_records = _sample(resumed, _scripted(calls, start=at), calls - at)
    assert first_items.items + rest_items.items == whole_items.items
    assert first_records + rest_records == whole_records
    assert len(whole_records) > N  # episodes ended, before and after the stop
    whole.env.close()
    resumed.env.close()


def test_a_checkpoint_without_episodes_starts_new_ones_with_a_warning() -> None:
    """A checkpoint of border_py 0.2 holds only the sub-env count: it still resumes."""
    sampler = _sampler()
    with pytest.warns(ResumeWarning, match="starts new episodes on resume .the checkpoint holds no episodes"):
        sampler.load_state_dict({"num_envs": N})
    kept, _ = _sample(sampler, _scripted(3), 3)
    assert len(kept) == N  # a 3-step processor's first items: new episodes began


def test_a_vector_env_whose_sub_envs_note_no_episode_starts_resumes_with_new_episodes() -> None:
    made = gym.make_vec(
        "CartPole-v1",
        num_envs=N,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    env = GymVecEnv(made, seed=0, name="CartPole-v1")
    assert not env.can_rewind
    sampler = SyncSampler(env, [NStepStepProcessor(n_steps=1, gamma=0.9) for _ in range(N)])
    sampler.sample_and_push(_scripted(1), _Kept())
    state = sampler.state_dict()
    assert state == {"num_envs": N}
    with pytest.warns(ResumeWarning, match="new episodes on resume .it cannot rewind its sub-envs"):
        sampler.load_state_dict(state)
    with pytest.raises(RuntimeError, match="note no episode starts"):
        env.episode_start_state()


def test_a_replay_that_does_not_reach_the_saved_observation_warns_and_starts_new_episodes() -> None:
    first = _sampler()
    _sample(first, _scripted(10), 10)
    state = decode(encode(first.state_dict()))
    state["obs"][1] = state["obs"][1] + 1.0  # the replay cannot end there
    resumed = _sampler()
    with pytest.warns(ResumeWarning, match="did not reproduce them"):
        resumed.load_state_dict(state)
    kept, _ = _sample(resumed, _scripted(13, start=10), 3)
    assert len(kept) == N  # a 3-step processor's first items: new episodes began
    logged = [[int(a) for a in acts] for acts in resumed.state_dict()["actions"]]
    assert logged == _scripted(13).rows[10:].T.tolist()  # each new episode's actions, from its start


@pytest.mark.parametrize(
    ("sub_env", "change", "match"),
    [
        (1, {"seed": -1}, "CartPole-v1 sub-env 1: episode_start.seed must be a whole number"),
        (2, {"seed": None, "np_random": None}, "sub-env 2: an episode starts from a seed or from an RNG"),
        (
            0,
            {"seed": None, "np_random": {"bit_generator": "PCG64"}},
            "episode_start.np_random is not a PCG64",
        ),
    ],
)
def test_a_malformed_episode_start_is_refused_naming_the_sub_env(
    sub_env: int, change: dict[str, Any], match: str
) -> None:
    first = _sampler()
    _sample(first, _scripted(3), 3)
    state = decode(encode(first.state_dict()))
    state["episode_start"]["sub_envs"][sub_env].update(change)
    with pytest.raises(ValueError, match=match):
        _sampler().load_state_dict(state)


@pytest.mark.parametrize("action", [7, {"a": 1}])
def test_a_saved_action_the_env_refuses_is_refused_naming_the_sub_env(action: object) -> None:
    first = _sampler()
    _sample(first, _scripted(3), 3)
    state = decode(encode(first.state_dict()))
    state["actions"][1][0] = action
    with pytest.raises(ValueError, match="CartPole-v1 sub-env 1: a saved action the env refuses"):
        _sampler().load_state_dict(state)
