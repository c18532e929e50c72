"""Vector envs: GymVecEnv's same-step resets, the sampler's N step processors, batched acting, and the
trainer's opt schedule over N env steps per call (its resume: test_vec_resume.py)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py import (
    GymEnvConfig,
    GymVecEnv,
    GymVecEnvConfig,
    NStepStepProcessor,
    NullRecorder,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    SyncSampler,
    Trainer,
    TrainerConfig,
    Transition,
)
from border_py.agents import Dqn, DqnConfig, Iqn, IqnConfig, Sac, SacConfig
from border_py.base import Spaces
from border_py.base.policy import sample_all
from border_py.trainer import opts_due


class _ObsPolicy:
    """Deterministic and observation-dependent: pushes the cart towards the pole's lean."""

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        return np.array(int(obs[2] > 0), dtype=np.int64)


def _as_tuple(t: Transition) -> tuple[Any, ...]:
    return (t.obs.tolist(), int(t.act), t.next_obs.tolist(), t.reward, t.discount, t.is_terminated)


def _items(sampler: SyncSampler[Any, Any, Transition], calls: int) -> list[list[tuple[Any, ...]]]:
    """What each call pushes, call by call."""
    out: list[list[tuple[Any, ...]]] = []

    class _Buffer:
        def push(self, t: Transition) -> None:
            out[-1].append(_as_tuple(t))

        def __len__(self) -> int:
            return sum(len(c) for c in out)

    for _ in range(calls):
        out.append([])
        sampler.sample_and_push(_ObsPolicy(), _Buffer())
    return out


def test_each_sub_env_is_the_single_env_seeded_with_seed_plus_i() -> None:
    """Same-step reset: an ended episode's step carries its final observation and the next episode's
    first one, exactly as GymEnv does, and each sub-env records its own episodes."""
    n, steps = 3, 120
    vec = GymVecEnvConfig(name="CartPole-v1", num_envs=n).build(seed=5)
    singles = [GymEnvConfig(name="CartPole-v1").build(seed=5 + i) for i in range(n)]
    obs = vec.reset()
    single_obs = [e.reset() for e in singles]
    np.testing.assert_array_equal(np.stack(obs), np.stack(single_obs))
    policy, n_episodes = _ObsPolicy(), 0
    for _ in range(steps):
        acts = [policy.sample(o) for o in obs]
        vec_steps, vec_records = vec.step(acts)
        single_records = []
        for i, (env, step) in enumerate(zip(singles, vec_steps, strict=True)):
            expected, record = env.step(acts[i])
            single_records += [dict(record)] if record else []
            np.testing.assert_array_equal(step.obs, expected.obs)
            assert (step.reward, step.is_terminated, step.is_truncated) == (
                expected.reward,
                expected.is_terminated,
                expected.is_truncated,
            )
            if expected.init_obs is None:
                assert step.init_obs is None
            else:
                np.testing.assert_array_equal(step.init_obs, expected.init_obs)
                n_episodes += 1
        assert [dict(r) for r in vec_records] == single_records
        obs = [s.init_obs if s.init_obs is not None else s.obs for s in vec_steps]
    assert n_episodes >= 3  # the comparison crossed episode ends


def test_the_sampler_pushes_n_items_per_call_each_sub_env_with_its_own_n_step_processor() -> None:
    n, calls = 4, 150
    vec = SyncSampler(
        GymVecEnvConfig(name="CartPole-v1", num_envs=n).build(seed=0),
        [NStepStepProcessor(n_steps=3, gamma=0.9) for _ in range(n)],
    )
    assert vec.num_envs == n
    per_call = _items(vec, calls)
    singles = [
        _items(
            SyncSampler(
                GymEnvConfig(name="CartPole-v1").build(seed=i), NStepStepProcessor(n_steps=3, gamma=0.9)
            ),
            calls,
        )
        for i in range(n)
    ]
    # Each call pushes what the n single samplers push in their call, in sub-env order.
    assert per_call == [[item for s in singles for item in s[c]] for c in range(calls)]
    assert sum(len(c) for c in per_call) >= n * (calls - 3)
    assert vec.take_fps() > 0.0


def test_the_sampler_needs_one_step_processor_per_sub_env() -> None:
    env = GymVecEnvConfig(name="CartPole-v1", num_envs=2).build(seed=0)
    with pytest.raises(ValueError, match="2 sub-envs needs as many step processors"):
        SyncSampler(env, [NStepStepProcessor(n_steps=1, gamma=0.9)])
    with pytest.raises(ValueError, match="2 sub-envs needs as many step processors"):
        SyncSampler(env, NStepStepProcessor(n_steps=1, gamma=0.9))
    with pytest.raises(ValueError, match="one step processor, not a sequence"):
        SyncSampler(GymEnvConfig(name="CartPole-v1").build(0), [NStepStepProcessor(n_steps=1, gamma=0.9)])


def test_a_next_step_reset_vector_env_is_refused() -> None:
    env = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(ValueError, match=r"NEXT_STEP; border_py needs AutoresetMode\.SAME_STEP"):
        GymVecEnv(env, seed=0, name="CartPole-v1")


def test_bad_actions_are_refused_naming_the_sub_env() -> None:
    env = GymVecEnvConfig(name="CartPole-v1", num_envs=3).build(seed=0)
    env.reset()
    ok = np.array(0, dtype=np.int64)
    with pytest.raises(ValueError, match="action 2 of sub-env 1 outside Discrete"):
        env.step([ok, np.array(2, dtype=np.int64), ok])
    with pytest.raises(ValueError, match="2 actions for 3 sub-envs"):
        env.step([ok, ok])
    box = GymVecEnvConfig(name="Pendulum-v1", num_envs=2).build(seed=0)
    box.reset()
    with pytest.raises(ValueError, match="of sub-env 0 outside Box"):
        box.step([np.array([3.0], np.float32), np.array([0.0], np.float32)])
    with pytest.raises(ValueError, match=r"action shape \(2,\) != action space shape \(1,\)"):
        box.step([np.zeros(2, np.float32)] * 2)


class _NanAfterTwo(gym.Env[np.ndarray, int]):
    def __init__(self) -> None:
        self.observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = gym.spaces.Discrete(2)  # type: ignore[assignment]  # gymnasium types it Space[int]
        self.t = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.t += 1
        return np.zeros(2, np.float32), (np.nan if self.t == 2 else 0.0), False, False, {}


def test_a_nan_reward_names_the_env_step() -> None:
    env = GymVecEnv(
        gym.vector.SyncVectorEnv(
            [_NanAfterTwo, _NanAfterTwo], autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
        ),
        seed=0,
        name="NanAfterTwo",
    )
    env.reset()
    zeros = [np.array(0, dtype=np.int64)] * 2
    env.step(zeros)
    with pytest.raises(ValueError, match="NanAfterTwo: reward at env step 4 is not finite"):
        env.step(zeros)


@pytest.mark.parametrize("agent", ["dqn", "iqn", "sac"])
def test_batched_acting_matches_acting_one_by_one_in_eval_mode(agent: str) -> None:
    rng = np.random.default_rng(0)
    if agent == "sac":
        policy: Any = Sac(
            SacConfig(),
            Spaces(
                obs_shape=(3,),
                action_low=np.array([-2.0], np.float32),
                action_high=np.array([2.0], np.float32),
            ),
            seed=0,
        )
        obs = list(rng.normal(size=(5, 3)).astype(np.float32))
    else:
        policy = (
            Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
            if agent == "dqn"
            else Iqn(IqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        )
        obs = list(rng.normal(size=(5, 4)).astype(np.float32))
    policy.eval()
    batched = policy.sample_batch(obs)
    one_by_one = [policy.sample(o) for o in obs]
    assert len(batched) == 5
    for b, o in zip(batched, one_by_one, strict=True):
        assert b.dtype == o.dtype
        assert b.shape == o.shape
        np.testing.assert_allclose(b, o, rtol=1e-5, atol=1e-6)  # batched matmul rounding
    assert list(sample_all(policy, obs)) == list(batched) or agent == "sac"


def test_batched_exploration_advances_the_schedule_once_per_observation() -> None:
    dqn = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    dqn.train()
    acts = dqn.sample_batch([np.zeros(4, np.float32)] * 7)
    assert len(acts) == 7
    assert {int(a) for a in acts} <= {0, 1}
    assert dqn.explorer.n_steps == 7  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("before", "after", "warmup_end", "opt_interval", "due"),
    [
        (9, 10, 0, 2, 1),
        (10, 11, 0, 2, 0),
        (4, 5, 5, 1, 0),  # env step 5 is the last of the warm-up
        (5, 6, 5, 1, 1),
        (0, 16, 4, 4, 3),  # 8, 12, 16
        (60, 68, 64, 2, 2),  # 66, 68
        (64, 68, 64, 8, 0),
    ],
)
def test_opts_due_counts_the_multiples_of_opt_interval_past_the_warm_up(
    before: int, after: int, warmup_end: int, opt_interval: int, due: int
) -> None:
    assert opts_due(before, after, warmup_end, opt_interval) == due
    # The same as stepping one env step at a time.
    assert due == sum(s > warmup_end and s % opt_interval == 0 for s in range(before + 1, after + 1))


def test_the_trainer_counts_n_env_steps_per_call_and_runs_every_opt_due() -> None:
    trainer = Trainer(
        TrainerConfig(max_opts=10, opt_interval=2, warmup_period=64),
        GymVecEnvConfig(name="CartPole-v1", num_envs=4),
        SimpleStepProcessorConfig(),
        SimpleReplayBufferConfig(capacity=1000),
    )
    dqn = Dqn(DqnConfig(batch_size=32), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    before = [p.detach().clone() for p in dqn.parts.net.net.parameters()]
    result = trainer.train(dqn, NullRecorder())
    # Warm-up ends at env step 64; each call then passes 2 multiples of 2: 5 calls for 10 opt steps.
    assert (result.opt_steps, result.env_steps) == (10, 84)
    assert dqn.opt_steps == 10
    assert dqn.explorer.n_steps == 84  # type: ignore[union-attr]  # one explored action per env step
    assert any(not torch.equal(b, p) for b, p in zip(before, dqn.parts.net.net.parameters(), strict=True))


def test_clip_actions_clips_box_actions_into_the_space_and_still_refuses_nan() -> None:
    box = GymVecEnvConfig(name="Pendulum-v1", num_envs=2, clip_actions=True).build(seed=0)
    box.reset()
    steps, _ = box.step([np.array([3.0], np.float32), np.array([-0.5], np.float32)])
    assert [float(s.act[0]) for s in steps] == [3.0, -0.5]  # the policy's action is what the step records
    assert box.env.unwrapped.get_attr("last_u") == (2.0, -0.5)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="of sub-env 1 outside Box"):
        box.step([np.array([0.0], np.float32), np.array([np.nan], np.float32)])
    single = GymVecEnvConfig(name="Pendulum-v1", num_envs=2, clip_actions=True).single().build(seed=0)
    single.reset()
    single.step(np.array([-9.0], np.float32))
    assert single.env.unwrapped.last_u == -2.0  # type: ignore[attr-defined]
