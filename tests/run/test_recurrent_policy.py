"""A saved recurrent PPO model in a user's hands: `load_policy` refuses to act without its memory
(``predict``), acts with it through ``predict_with_memory`` (sb3-contrib's ``predict(obs, state,
episode_start)``), `evaluate_policy` carries it through each episode, and ``border-py export`` writes a
numpy and an ONNX policy that act as the loaded one."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import border_py.envs.no_velocity  # noqa: F401  (registers border_py/CartPoleNoVel-v1)
from border_py.export import NumpyPolicy, OnnxPolicy
from border_py.run import TrainOptions, evaluate_policy, load_experiment_text, load_policy, train
from border_py.run import with_trainer as with_trainer_fields
from border_py.run.cli import main

RECURRENT_PPO = """
env: {type: gym_vec, name: border_py/CartPoleNoVel-v1, num_envs: 2}
step_processor: {type: simple, gamma: 0.99}
replay_buffer: {type: rollout, n_steps: 16, num_envs: 2}
agent: {type: recurrent_ppo, batch_size: 16, n_epochs: 1, lstm_hidden: 8, hidden: [8], normalize_obs: true}
trainer: {max_opts: 2, opt_interval: 32, eval_interval: 2, save_interval: 2}
evaluator: {n_episodes: 2}
"""
MEMORY = (2, 1, 3, 8)
"""The memory of 3 lanes: h and c of one layer of 8 units."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recurrent PPO run of 2 rollouts on CartPole without velocities (observations normalised)."""
    model_dir = tmp_path_factory.mktemp("recurrent_ppo")
    experiment = with_trainer_fields(load_experiment_text(RECURRENT_PPO), model_dir=str(model_dir))
    train(experiment, TrainOptions(progress=False, quiet=True))
    return model_dir


def _observations(steps: int, lanes: int) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(steps, lanes, 4)).astype(np.float32)


def test_predict_refuses_a_policy_with_memory_naming_predict_with_memory(run: Path) -> None:
    policy = load_policy(run)
    assert policy.recurrent
    with pytest.raises(ValueError, match=r"has memory.*predict_with_memory\(obs, memory, episode_start\)"):
        policy.predict(np.zeros(4, np.float32))


def test_the_memory_is_carried_lane_by_lane_and_cleared_where_an_episode_starts(run: Path) -> None:
    policy = load_policy(run)
    obs = _observations(8, 3)
    memory = None
    for t in range(len(obs)):
        action, after = policy.predict_with_memory(obs[t], memory)
        assert (action.shape, after.shape) == ((3,), MEMORY)
        for lane in range(3):  # each lane alone, from its own memory, acts as in the batch
            alone = None if memory is None else memory[:, :, lane : lane + 1]
            lane_action, lane_after = policy.predict_with_memory(obs[t, lane], alone)
            assert lane_action.shape == ()
            assert int(lane_action) == int(action[lane])
            np.testing.assert_allclose(lane_after[:, :, 0], after[:, :, lane], atol=1e-6)
        memory = after
    assert memory is not None
    assert np.abs(memory).max() > 0.01
    kept = memory.copy()
    _, started = policy.predict_with_memory(obs[0], memory, episode_start=[False, True, False])
    cleared = memory.copy()
    cleared[:, :, 1] = 0.0
    assert np.array_equal(started, policy.predict_with_memory(obs[0], cleared)[1])
    assert np.array_equal(memory, kept)  # the memory passed in is left as it was
    fresh = policy.predict_with_memory(obs[0])[1]
    assert np.array_equal(policy.predict_with_memory(obs[0], memory, episode_start=True)[1], fresh)
    assert np.array_equal(policy.predict_with_memory(obs[0], np.zeros(MEMORY, np.float32))[1], fresh)
    assert not np.array_equal(policy.predict_with_memory(obs[0], memory)[1], fresh)  # the past matters


def test_memories_and_flags_that_do_not_fit_the_lanes_are_refused(run: Path) -> None:
    policy = load_policy(run)
    obs = _observations(1, 3)[0]
    with pytest.raises(
        ValueError, match=r"predict_with_memory: a memory of 3 lane\(s\).*got shape \(2, 1, 2, 8\)"
    ):
        policy.predict_with_memory(obs, np.zeros((2, 1, 2, 8), np.float32))
    with pytest.raises(ValueError, match=r"predict_with_memory: a memory is \(2, 1, lanes, 8\)"):
        policy.predict_with_memory(obs, np.zeros((2, 1, 3, 5), np.float32))
    with pytest.raises(ValueError, match="not finite"):
        policy.predict_with_memory(obs, np.full(MEMORY, np.nan, np.float32))
    with pytest.raises(ValueError, match=r"episode_start: one flag or one per lane \(3\), got 2"):
        policy.predict_with_memory(obs, None, episode_start=[True, False])
    with pytest.raises(ValueError, match=r"predict_with_memory: an observation has shape \(4,\)"):
        policy.predict_with_memory(np.zeros(3, np.float32))


def test_evaluate_policy_in_a_gym_env_starts_the_memory_at_each_reset(run: Path) -> None:
    policy = load_policy(run)
    env = gym.make("border_py/CartPoleNoVel-v1")
    evaluation = evaluate_policy(policy, env, n_episodes=2, seed=3)
    returns = []
    for i in range(2):  # the same episodes, played by hand
        obs, _ = env.reset(seed=3 + i)
        memory, total, done = None, 0.0, False
        while not done:
            action, memory = policy.predict_with_memory(obs, memory)
            obs, reward, terminated, truncated, _ = env.step(action)
            total, done = total + float(reward), terminated or truncated
        returns.append(total)
    assert evaluation.returns == tuple(returns)
    assert len(evaluate_policy(policy, n_episodes=1).returns) == 1  # the run's own evaluation env


def test_border_py_export_writes_policies_that_act_as_the_loaded_one(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "exported"
    assert main(["export", "--model-dir", str(run), "--out", str(out)]) == 0
    assert "ONNX policy" in capsys.readouterr().out
    loaded = load_policy(run)
    numpy_policy, onnx_policy = NumpyPolicy.load(out), OnnxPolicy.load(out)
    assert numpy_policy.kind == "lstm"
    assert numpy_policy.obs_norm is not None
    env = gym.make("border_py/CartPoleNoVel-v1")
    obs, _ = env.reset(seed=0)
    memory, numpy_memory, onnx_memory = None, numpy_policy.initial_memory(), onnx_policy.initial_memory()
    for _ in range(200):
        action, memory = loaded.predict_with_memory(obs, memory)
        numpy_action, numpy_memory = numpy_policy.act_with_memory(obs, numpy_memory)
        onnx_action, onnx_memory = onnx_policy.act_with_memory(obs, onnx_memory)
        assert int(numpy_action) == int(onnx_action) == int(action)
        np.testing.assert_allclose(numpy_memory, memory, atol=1e-4)
        np.testing.assert_allclose(onnx_memory, memory, atol=1e-4)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
