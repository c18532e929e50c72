"""Minari datasets: collected from a policy, loaded as transitions (ours and one made with Minari's own
API), reward normalisation, observation statistics, a replay buffer prefilled with one."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import minari
import numpy as np
import pytest

from border_py import GymEnvConfig
from border_py.datasets import (
    BEHAVIOUR_RETURN_KEY,
    DatasetInfo,
    MinariDatasetConfig,
    PrefilledReplayBufferConfig,
    collect,
    datasets_path,
    observation_stats,
)


class _Constant:
    def __init__(self, act: Any) -> None:
        self.act = act

    def sample(self, obs: Any) -> Any:
        return self.act


def test_collect_keeps_episodes_flags_and_the_behaviour_return(tmp_path: Path) -> None:
    # CartPole pushed always left terminates after about 10 steps: every episode ends terminated except
    # the last, cut by the budget.
    env = GymEnvConfig(name="CartPole-v1")
    info = DatasetInfo(description="left")
    report = collect(_Constant(np.array(0)), env, 95, "cartpole-left-v0", info=info, data_path=str(tmp_path))
    config = MinariDatasetConfig(dataset_id="cartpole-left-v0", gamma=0.9, data_path=str(tmp_path))
    episodes = list(config.load().iterate_episodes())
    assert report.n_episodes == len(episodes)
    assert sum(len(e.rewards) for e in episodes) == 95
    assert all(e.terminations[-1] and not e.truncations[-1] for e in episodes[:-1])
    assert episodes[-1].truncations[-1]
    assert not episodes[-1].terminations[-1]
    returns = [float(np.sum(e.rewards)) for e in episodes[:-1]]
    assert report.mean_return == pytest.approx(np.mean(returns))
    metadata = config.metadata()
    assert metadata[BEHAVIOUR_RETURN_KEY] == pytest.approx(report.mean_return)
    assert metadata["description"].startswith("left Behaviour policy's mean return over")

    dataset = config.build(seed=0)
    assert len(dataset) == 95
    s = dataset.storage
    # next_obs of step t is obs of step t + 1 inside an episode; the discount is gamma.
    first = len(episodes[0].rewards)
    np.testing.assert_array_equal(s.next_obs[: first - 1], s.obs[1:first])
    assert s.is_terminated[:first].tolist() == [0.0] * (first - 1) + [1.0]
    np.testing.assert_allclose(s.discount, 0.9, rtol=1e-6)


def test_a_dataset_made_with_minaris_own_api_loads_as_transitions(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    buffers = []
    for length, terminated in ((4, True), (3, False)):
        buffers.append(
            minari.data_collector.EpisodeBuffer(
                observations=rng.normal(size=(length + 1, 3)).astype(np.float32),
                actions=rng.uniform(-2, 2, size=(length, 1)).astype(np.float32),
                rewards=list(rng.normal(size=length)),
                terminations=[False] * (length - 1) + [terminated],
                truncations=[False] * (length - 1) + [not terminated],
            )
        )
    with datasets_path(str(tmp_path)), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Minari's advice on empty optional metadata
        minari.create_dataset_from_buffers("other-tool-v0", buffers, env=gym.spec("Pendulum-v1"))
    dataset = MinariDatasetConfig(dataset_id="other-tool-v0", data_path=str(tmp_path)).build(seed=0)
    s = dataset.storage
    assert len(dataset) == 7
    np.testing.assert_array_equal(s.obs[:4], buffers[0].observations[:4])
    np.testing.assert_array_equal(s.next_obs[4:7], buffers[1].observations[1:])
    assert s.is_terminated.tolist() == [0, 0, 0, 1, 0, 0, 0]
    assert s.is_truncated.tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert dataset.batch(5).act.shape == (5, 1)


def test_return_range_scales_rewards_and_observation_stats_describe_the_observations(tmp_path: Path) -> None:
    collect(
        _Constant(np.array([1.0], np.float32)), GymEnvConfig(name="Pendulum-v1"), 600, "pendulum-const-v0",
        data_path=str(tmp_path),
    )  # fmt: skip
    plain = MinariDatasetConfig(dataset_id="pendulum-const-v0", data_path=str(tmp_path))
    scaled = MinariDatasetConfig(
        dataset_id="pendulum-const-v0", data_path=str(tmp_path), reward_normalization="return_range"
    )
    episodes = list(plain.load().iterate_episodes())
    returns = [float(np.sum(e.rewards)) for e in episodes]
    factor = 1000.0 / (max(returns) - min(returns))
    a, b = plain.build(0).storage, scaled.build(0).storage
    np.testing.assert_allclose(b.reward[:600], a.reward[:600] * factor, rtol=1e-5)
    mean, std = observation_stats(plain.build(0))
    np.testing.assert_allclose(mean, a.obs[:600].mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(std, a.obs[:600].std(axis=0), rtol=1e-4)


def test_a_prefilled_replay_buffer_starts_with_the_dataset(tmp_path: Path) -> None:
    collect(_Constant(np.array(1)), GymEnvConfig(name="CartPole-v1"), 50, "cp-v0", data_path=str(tmp_path))
    buffer = PrefilledReplayBufferConfig(
        capacity=100, dataset=MinariDatasetConfig(dataset_id="cp-v0", data_path=str(tmp_path))
    ).build(seed=0)
    assert len(buffer) == 50
    assert buffer.capacity == 100


def test_a_missing_dataset_says_where_it_looked_and_how_to_build_it_and_creates_nothing(
    tmp_path: Path,
) -> None:
    config = MinariDatasetConfig(dataset_id="nope-v0", data_path=str(tmp_path / "data"))
    with pytest.raises(
        FileNotFoundError,
        match=r"nope-v0 not found locally: no .*data/nope-v0/data \(the zoo's datasets are built by "
        r"`make datasets`\)",
    ):
        config.build(seed=0)
    assert not (tmp_path / "data").exists()  # Minari would have created the datasets directory
    with pytest.raises(ValueError, match="collect needs n_transitions >= 1"):
        collect(_Constant(0), GymEnvConfig(name="CartPole-v1"), 0, "x-v0", data_path=str(tmp_path))


def test_a_truncated_dataset_file_is_refused_naming_its_directory(tmp_path: Path) -> None:
    collect(_Constant(np.array(1)), GymEnvConfig(name="CartPole-v1"), 50, "cut-v0", data_path=str(tmp_path))
    file = tmp_path / "cut-v0" / "data" / "main_data.hdf5"
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
    config = MinariDatasetConfig(dataset_id="cut-v0", data_path=str(tmp_path))
    with pytest.raises(
        ValueError, match=r"dataset cut-v0: the files in .*cut-v0/data are unreadable \(.*truncated"
    ):
        config.build(seed=0)


def test_a_damaged_dataset_file_is_a_value_error_wherever_the_damage_lies(tmp_path: Path) -> None:
    """512 bytes overwritten every 1,000: h5py raised a RuntimeError ('bad symbol table node signature')
    at 8 of 170 offsets (measured), which escaped as a traceback; each is now read, or refused naming
    what is wrong."""
    import shutil

    collect(_Constant(np.array(1)), GymEnvConfig(name="CartPole-v1"), 50, "bad-v0", data_path=str(tmp_path))
    original = (tmp_path / "bad-v0" / "data" / "main_data.hdf5").read_bytes()
    refused: list[str] = []
    for offset in range(0, len(original), 1000):
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tmp_path / "bad-v0", copy / "bad-v0")
        damaged = bytearray(original)
        damaged[offset : offset + 512] = b"\xff" * len(damaged[offset : offset + 512])
        (copy / "bad-v0" / "data" / "main_data.hdf5").write_bytes(bytes(damaged))
        try:
            MinariDatasetConfig(dataset_id="bad-v0", data_path=str(copy)).build(seed=0)
        except ValueError as exc:
            refused.append(str(exc))
    assert refused
    assert all("bad-v0" in message for message in refused)


def test_a_dataset_of_another_env_is_named_before_training() -> None:
    from border_py.base.spaces import Spaces
    from border_py.replay_buffer.dataset import ArrayDataset

    def dataset(act: np.ndarray) -> ArrayDataset:
        n = len(act)
        scalars = {k: np.zeros(n) for k in ("reward", "is_terminated", "is_truncated", "discount")}
        return ArrayDataset({"obs": np.zeros((n, 3)), "next_obs": np.zeros((n, 3)), "act": act, **scalars}, 0)

    box = dataset(np.zeros((5, 1), np.float32))
    box.check_fits(Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]))
    with pytest.raises(ValueError, match=r"observations of shape \(3,\), the env's are \(4,\)"):
        box.check_fits(Spaces(obs_shape=(4,), n_actions=2))
    with pytest.raises(ValueError, match=r"actions of shape \(1,\) \(float32\), the env's are 2 numbers"):
        box.check_fits(Spaces(obs_shape=(3,), action_low=[-1.0, -1.0], action_high=[1.0, 1.0]))
    discrete = dataset(np.array([0, 1, 2, 1, 0]))
    discrete.check_fits(Spaces(obs_shape=(3,), n_actions=3))
    with pytest.raises(ValueError, match="not integers below the env's 2"):
        discrete.check_fits(Spaces(obs_shape=(3,), n_actions=2))
    with pytest.raises(ValueError, match="not integers below the env's 3"):
        box.check_fits(Spaces(obs_shape=(3,), n_actions=3))


@pytest.mark.parametrize(
    "change",
    [
        {"entry_point": "os:system", "kwargs": {"command": "true"}},  # a registered id, another entry point
        {"kwargs": {"g": 1.0, "render_mode": "human"}},  # the registered env, other arguments
        {"additional_wrappers": [{"name": "W", "entry_point": "os:system", "kwargs": {}}]},
        {"id": "Evil-v0"},  # an id Gymnasium has not registered, with a registered entry point
    ],
)
def test_a_spaceless_dataset_is_refused_unless_it_names_an_env_exactly_as_registered(
    change: dict[str, Any], tmp_path: Path
) -> None:
    import json

    from border_py.dataset_trust import refuse_code, trusting_code

    file = tmp_path / "metadata.json"
    spec = json.loads(gym.spec("Pendulum-v1").to_json())
    file.write_text(json.dumps({"env_spec": json.dumps(spec), "observation_space": "{}"}))
    refuse_code(file)  # Pendulum-v1 as Gymnasium registers it: Minari may build it
    file.write_text(json.dumps({"env_spec": json.dumps({**spec, **change})}))
    with pytest.raises(ValueError, match=rf"^{file}: it has no observation_space .* --trust-code"):
        refuse_code(file)
    with trusting_code():
        refuse_code(file)
