"""`load_policy` and `evaluate_policy`: a saved model acts on one observation or a batch, greedy or drawn,
and its evaluation gives the mean, the standard deviation and every return (every zoo entry's kind is
loaded and evaluated in `test_zoo_entries.py`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

from border_py.run import (
    TrainOptions,
    evaluate,
    evaluate_policy,
    experiment_from_dict,
    load_experiment_text,
    load_policy,
    train,
    zoo,
)
from border_py.run import with_trainer as with_trainer_fields
from tests.run.conftest import tiny

PPO = """
env: {type: gym_vec, name: CartPole-v1, num_envs: 2}
step_processor: {type: simple, gamma: 0.99}
replay_buffer: {type: rollout, n_steps: 16, num_envs: 2}
agent: {type: ppo, batch_size: 16, n_epochs: 1}
trainer: {max_opts: 4, opt_interval: 32, eval_interval: 2, save_interval: 4}
evaluator: {n_episodes: 3}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PPO run of 4 rollouts on CartPole-v1 (its policy draws in train mode, takes the argmax in eval)."""
    model_dir = tmp_path_factory.mktemp("ppo")
    experiment = with_trainer_fields(load_experiment_text(PPO), model_dir=str(model_dir))
    train(experiment, TrainOptions(progress=False, quiet=True))
    return model_dir


def test_one_observation_gives_one_action_and_a_batch_gives_the_same_actions_row_by_row(run: Path) -> None:
    policy = load_policy(run)
    batch = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    actions = policy.predict(batch)
    assert actions.shape == (6,)
    assert [int(policy.predict(obs)) for obs in batch] == actions.tolist()
    assert policy.predict(batch[0].tolist()).shape == ()  # any array-like
    assert policy.path == run / "best"


def test_drawn_actions_vary_where_the_greedy_ones_do_not(run: Path) -> None:
    policy = load_policy(run, "4")
    obs = np.zeros((200, 4), np.float32)
    assert len(set(policy.predict(obs).tolist())) == 1
    assert set(policy.predict(obs, deterministic=False).tolist()) == {0, 1}  # a barely trained policy


def test_a_wrong_observation_shape_is_refused_with_both_shapes(run: Path) -> None:
    with pytest.raises(ValueError, match=r"an observation has shape \(4,\).*got \(3,\)"):
        load_policy(run).predict(np.zeros(3, np.float32))


def test_a_policy_without_memory_is_not_recurrent_and_refuses_predict_with_memory(run: Path) -> None:
    policy = load_policy(run)
    assert not policy.recurrent
    with pytest.raises(ValueError, match=r"this policy has no memory; use predict\(obs\)"):
        policy.predict_with_memory(np.zeros(4, np.float32))


def test_the_run_evaluation_is_border_py_eval_and_a_gym_env_plays_seeded_episodes(run: Path) -> None:
    policy = load_policy(run)
    evaluation = evaluate_policy(policy)
    assert len(evaluation.returns) == 3  # the run's evaluator's episodes
    assert evaluation.mean == evaluate(policy.experiment, run, quiet=True)
    assert evaluation.std == pytest.approx(float(np.std(evaluation.returns)))
    assert evaluation.returns == evaluation.lengths  # CartPole: one reward per step
    mine = evaluate_policy(policy, gym.make("CartPole-v1"), n_episodes=4, seed=7)
    again = evaluate_policy(policy, gym.make("CartPole-v1"), n_episodes=4, seed=7)
    assert mine == again
    assert len(mine.returns) == 4
    with pytest.raises(ValueError, match="n_episodes must be >= 1"):
        evaluate_policy(policy, n_episodes=0)


def test_drawn_actions_in_the_run_env_go_through_the_agents_own_sample(run: Path) -> None:
    """The evaluator's numpy acting is the greedy policy: an agent in train mode is played through its
    own sample (else the greedy policy would disagree with its draws and warn)."""
    from border_py.evaluator import numpy_actor

    policy = load_policy(run, "4")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a GreedyPolicyMismatch would fail here
        drawn = evaluate_policy(policy, n_episodes=3, deterministic=False)
    assert drawn != evaluate_policy(policy, n_episodes=3)  # a barely trained policy: draws differ
    agent = policy._agent
    agent.train()
    assert numpy_actor(agent) is None
    agent.eval()
    assert numpy_actor(agent) is not None


def test_bad_paths_and_names_are_refused(run: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "nothing")
    with pytest.raises(ValueError, match=r"--checkpoint '\.\./x'"):
        load_policy(run, "../x")
    with pytest.raises(FileNotFoundError, match="is not a saved model"):
        load_policy(run, "3")


def test_a_config_naming_code_is_refused_without_trust_code(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    data = yaml.safe_load((run / "config.yaml").read_text())
    data["env"]["name"] = "payload:Walk-v0"
    (copy / "config.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="--trust-code"):
        load_policy(copy)


@pytest.mark.parametrize("algo", ["iqn", "qrdqn"])
def test_integer_observations_act_as_the_same_floats(algo: str, tmp_path: Path) -> None:
    # IQN's and QR-DQN's networks took uint8 observations as pixels and failed in the first matmul.
    data = tiny(zoo.entry(algo, "CartPole-v1").data, tmp_path / "run", tmp_path / "datasets")
    train(experiment_from_dict(data), TrainOptions(progress=False, quiet=True))
    policy = load_policy(tmp_path / "run", "4")
    rows = np.random.default_rng(0).integers(0, 3, size=(8, 4))
    for ints in (rows.astype(np.int64), rows.astype(np.uint8)):
        floats = ints.astype(np.float32)
        np.testing.assert_array_equal(policy.predict(ints), policy.predict(floats))
        assert policy.predict(ints[0]) == policy.predict(floats[0])
