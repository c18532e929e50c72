"""Goal relabelling (`border_py.her`): the goals each strategy draws, the relabelled transitions and their
rewards for a 3-step episode by hand, the step processor holding an episode until its end, and the
refusal of an env that is not goal-conditioned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from border_py.base.goal_env import GoalReward
from border_py.base.obs_parts import ObsParts
from border_py.base.step import Step
from border_py.envs.gym_vector import GymVecEnvConfig
from border_py.envs.gymnasium import GymEnvConfig
from border_py.her import GoalLayout, HerStepProcessor, HerStepProcessorConfig, goal_steps, relabel
from border_py.replay_buffer.transition import Transition
from border_py.testing import CountingEnv
from border_py.trainer.sampler import SyncSampler

PARTS = ObsParts.of({"achieved_goal": (1,), "desired_goal": (1,), "observation": (1,)})
LAYOUT = GoalLayout(slice(0, 1), slice(1, 2), (1,))
GOAL_ENV = "border_py/PointGoal-v0"


def sparse_reward(achieved: Any, desired: Any, infos: Sequence[Mapping[str, Any]]) -> npt.NDArray[Any]:
    """0 within 0.5 of the goal, else -1, over batches of 1-d goals."""
    assert len(infos) == len(achieved)
    missed: npt.NDArray[Any] = np.abs(np.asarray(achieved) - np.asarray(desired))[..., 0] >= 0.5
    return -missed.astype(np.float64)


class FakeGoalEnv:
    """What goal relabelling reads of an env (`border_py.base.GoalEnv`)."""

    name = "FakeGoal-v0"

    def __init__(self, parts: ObsParts | None = PARTS, reward: GoalReward | None = sparse_reward) -> None:
        self.obs_parts, self._reward = parts, reward

    def goal_reward(self) -> GoalReward | None:
        return self._reward


def row(position: float, goal: float = 5.0) -> npt.NDArray[np.float32]:
    """A flat observation ``[achieved_goal, desired_goal, observation]`` of a point at ``position``."""
    return np.array([position, goal, position], np.float32)


# An episode of 3 steps from 0 to 3 towards a goal at 5: the achieved goals after the steps are 1, 2, 3.
OBS = np.stack([row(0), row(1), row(2)])
NEXT = np.stack([row(1), row(2), row(3)])


def test_each_strategy_draws_its_goal_steps_from_a_seeded_rng() -> None:
    draws = {
        s: goal_steps(s, 3, 2, np.random.default_rng(0)).tolist() for s in ("future", "final", "episode")
    }
    assert draws["future"] == [[2, 1], [2, 1], [2, 2]]  # each at or after its own step
    assert draws["final"] == [[2, 2], [2, 2], [2, 2]]
    assert draws["episode"] == [[2, 1], [1, 0], [0, 0]]  # anywhere, before its own step too


@pytest.mark.parametrize(
    ("strategy", "goals", "rewards"),
    [
        # Transition t's achieved goal is t + 1; a goal within 0.5 of it is a success (0), else -1.
        ("future", [3, 2, 3, 2, 3, 3], [-1, -1, -1, 0, 0, 0]),
        ("final", [3, 3, 3, 3, 3, 3], [-1, -1, -1, -1, 0, 0]),
        ("episode", [3, 2, 2, 1, 1, 1], [-1, -1, 0, -1, -1, -1]),
    ],
)
def test_a_three_step_episode_is_relabelled_by_hand(
    strategy: str, goals: list[float], rewards: list[float]
) -> None:
    picks = goal_steps(strategy, 3, 2, np.random.default_rng(0))
    obs, next_obs, got = relabel(OBS, NEXT, [{}] * 3, picks, LAYOUT, sparse_reward)
    assert obs[:, 1].tolist() == goals == next_obs[:, 1].tolist()  # the desired goal, in both
    assert obs[:, 0].tolist() == [0, 0, 1, 1, 2, 2]  # the rest is the transition's: copies t-major
    assert next_obs[:, 2].tolist() == [1, 1, 2, 2, 3, 3]
    assert got.tolist() == rewards
    assert OBS[:, 1].tolist() == NEXT[:, 1].tolist() == [5, 5, 5]  # the episode itself is untouched


def test_a_compute_reward_that_takes_one_goal_only_is_refused() -> None:
    def scalar(achieved: Any, desired: Any, infos: Any) -> Any:
        return -1.0

    with pytest.raises(ValueError, match=r"shape \(\) for 6 goals .* batches of goals"):
        relabel(OBS, NEXT, [{}] * 3, np.zeros((3, 2), np.int64), LAYOUT, scalar)


def steps(truncated_at_end: bool = True) -> list[Step[Any, Any]]:
    return [
        Step(
            act=np.array([0.5], np.float32),
            obs=NEXT[i],
            reward=-1.0,
            is_terminated=False,
            is_truncated=truncated_at_end and i == 2,
            info={"step": i},
            init_obs=row(9) if i == 2 else None,
        )
        for i in range(3)
    ]


def test_the_processor_holds_the_episode_and_emits_each_transition_then_its_copies() -> None:
    processor = HerStepProcessorConfig(strategy="final", n_sampled_goal=2, gamma=0.9).build_for(FakeGoalEnv())
    processor.reset(OBS[0])
    episode = steps()
    assert processor.process(episode[0]) == []
    assert processor.process(episode[1]) == []
    items = processor.process(episode[2])
    assert len(items) == 9
    desired = [item.obs[1] for item in items]
    assert desired == [5, 3, 3, 5, 3, 3, 5, 3, 3]  # original, then its 2 copies toward the final goal 3
    assert [item.reward for item in items] == [-1, -1, -1, -1, -1, -1, -1, 0, 0]
    assert [item.obs[0] for item in items] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [item.is_truncated for item in items] == [False] * 6 + [True] * 3  # the env's flags, kept
    assert not any(item.is_terminated for item in items)
    assert {item.discount for item in items} == {0.9}
    assert processor.process(Step(act=np.zeros(1), obs=row(8), reward=-1.0, is_terminated=False,
                                  is_truncated=False)) == []  # fmt: skip
    assert processor._obs[0].tolist() == row(9).tolist()  # the next episode starts at init_obs


def _relabelled_goals(items: list[Transition]) -> list[float]:
    return [float(item.obs[1]) for i, item in enumerate(items) if i % 5]


def test_future_goals_come_from_later_in_the_episode_and_a_replayed_episode_draws_the_same() -> None:
    processor = HerStepProcessorConfig().build_for(FakeGoalEnv())
    runs = []
    for _ in range(2):  # a resumed run replays the unfinished episode: its relabelling must not change
        processor.reset(OBS[0])
        runs.append([item for step in steps() for item in processor.process(step)])
    first, again = runs
    assert len(first) == 3 * 5
    goals = _relabelled_goals(first)
    assert goals == _relabelled_goals(again)
    assert all(g >= t + 1 for t in range(3) for g in goals[4 * t : 4 * t + 4])  # at or after step t
    rewards = [item.reward for i, item in enumerate(first) if i % 5]
    assert rewards == [0.0 if g == t + 1 else -1.0 for t in range(3) for g in goals[4 * t : 4 * t + 4]]


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (
            FakeGoalEnv(parts=None, reward=None),
            "has no observations that are a dict of 'achieved_goal', "
            "'desired_goal' and 'observation' and no compute_reward",
        ),
        (FakeGoalEnv(reward=None), "FakeGoal-v0 has no compute_reward$"),
        (FakeGoalEnv(ObsParts.of({"achieved_goal": (1,), "observation": (1,)})), "part 'desired_goal'"),
        (FakeGoalEnv(ObsParts.of({"achieved_goal": (1,), "desired_goal": (1,)})), "besides the goals"),
        (FakeGoalEnv(ObsParts.of({"achieved_goal": (2,), "desired_goal": (1,), "o": (1,)})), "one shape"),
        (CountingEnv(), "CountingEnv has no obs_parts and goal_reward()"),
    ],
)
def test_an_env_that_is_not_goal_conditioned_is_refused_in_one_line(env: Any, says: str) -> None:
    with pytest.raises(ValueError, match=r"^HerStepProcessor needs a goal-conditioned env, but ") as caught:
        HerStepProcessor().read_env(env)
    assert len(str(caught.value).splitlines()) == 1
    assert caught.match(says.replace("(", r"\(").replace(")", r"\)"))


def test_bad_settings_are_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="n_sampled_goal"):
        HerStepProcessorConfig(n_sampled_goal=0)
    with pytest.raises(ValueError, match="strategy"):
        HerStepProcessorConfig(strategy="later")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="before read_env"):
        HerStepProcessor().reset(OBS[0])


@pytest.mark.parametrize("mode", ["single", "sync", "async"])
def test_the_gym_envs_give_their_compute_reward_batched(mode: str) -> None:
    kwargs = {"reward_type": "sparse"}
    env: Any = (
        GymEnvConfig(name=GOAL_ENV, kwargs=kwargs).build(0)
        if mode == "single"
        else GymVecEnvConfig(name=GOAL_ENV, num_envs=2, mode=mode, kwargs=kwargs).build(0)  # type: ignore[arg-type]
    )
    try:
        reward = env.goal_reward()
        assert reward is not None
        achieved = np.array([[0.0, 0.0], [0.0, 0.0]], np.float32)
        desired = np.array([[0.0, 0.04], [0.0, 0.06]], np.float32)
        assert np.asarray(reward(achieved, desired, [{}, {}])).tolist() == [0.0, -1.0]
        assert env.obs_parts.keys == ("achieved_goal", "desired_goal", "observation")
    finally:
        env.close()
    assert GymEnvConfig(name="Pendulum-v1").build(0).goal_reward() is None


class Items:
    def __init__(self, items: list[Transition]) -> None:
        self.items = items

    def push(self, item: Transition) -> None:
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)


class Diagonal:
    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.array([0.5, 0.5], np.float32)


def test_the_sampler_hands_the_env_to_the_processor_and_the_buffer_gets_whole_episodes() -> None:
    env = GymEnvConfig(name=GOAL_ENV, kwargs={"reward_type": "sparse"}).build(0)
    sampler = SyncSampler(env, HerStepProcessorConfig(n_sampled_goal=3).build())
    buffer: list[Transition] = []
    for n in range(1, 51):
        sampler.sample_and_push(Diagonal(), Items(buffer))
        assert len(buffer) == (0 if n < 50 else 50 * 4)  # nothing before the episode's end at 50 steps
    with pytest.raises(ValueError, match="CartPole-v1 has no observations that are a dict"):
        SyncSampler(GymEnvConfig(name="CartPole-v1").build(0), HerStepProcessor())


def test_a_vector_envs_sub_envs_each_relabel_their_own_episodes() -> None:
    env = GymVecEnvConfig(name=GOAL_ENV, num_envs=2, kwargs={"reward_type": "sparse"}).build(0)
    sampler = SyncSampler(env, [HerStepProcessorConfig(n_sampled_goal=1).build() for _ in range(2)])
    items: list[Transition] = []
    for _ in range(50):
        sampler.sample_and_push(Diagonal(), Items(items))
    assert len(items) == 2 * 50 * 2
    for episode in (items[:100], items[100:]):  # one sub-env's episode, then the other's
        originals, copies = episode[::2], episode[1::2]
        assert len({float(item.obs[2]) for item in originals}) == 1  # one desired goal an episode
        achieved = {tuple(item.next_obs[:2]) for item in originals}
        assert all(tuple(copy.obs[2:4]) in achieved for copy in copies)  # each copy's goal was reached
    env.close()
