"""A dict observation's image parts are stored as uint8 in the transition replay buffer (a quarter of the
float32 bytes), and everything read back is the float32 of a buffer without that split, bit for bit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from border_py.agents import SacConfig
from border_py.agents.cnn_config import MultiInputConfig
from border_py.base.obs_parts import ObsParts
from border_py.base.spaces import Spaces
from border_py.envs.gymnasium import GymEnvConfig
from border_py.recorders import NullRecorder
from border_py.replay_buffer.simple import PerConfig, SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.storage import TransitionStorage
from border_py.replay_buffer.transition import Transition, TransitionBatch
from border_py.seeding import seed_everything
from border_py.step_processor import NStepStepProcessorConfig
from border_py.trainer import Trainer, TrainerConfig

# Image parts between, before and after flat parts: every kind of run the storage splits.
PARTS = ObsParts.of(
    {"cam": (2, 2, 1), "pos": (3,), "eye": (1, 2, 2), "depth": (2, 1, 1), "vel": (2,)},
    images=["cam", "eye", "depth"],
)
SPACES = Spaces(obs_shape=(PARTS.dim,), action_low=[-1.0], action_high=[1.0], obs_parts=PARTS)
N_IMAGE = 4 + 4 + 2


def _obs(rng: np.random.Generator) -> np.ndarray[Any, np.dtype[np.float32]]:
    obs = rng.normal(size=PARTS.dim).astype(np.float32)
    for p in PARTS.images:
        obs[PARTS.span(p.key)] = rng.integers(0, 256, p.size)
    return obs


def _transitions(n: int, seed: int = 0) -> list[Transition]:
    rng = np.random.default_rng(seed)
    return [
        Transition(
            obs=_obs(rng),
            act=rng.uniform(-1, 1, 1).astype(np.float32),
            next_obs=_obs(rng),
            reward=float(rng.normal()),
            is_terminated=bool(rng.random() < 0.1),
            is_truncated=False,
            discount=0.99,
        )
        for _ in range(n)
    ]


def _buffer(split: bool, per: bool = False, capacity: int = 16) -> SimpleReplayBuffer:
    buffer = SimpleReplayBufferConfig(capacity=capacity, per=PerConfig() if per else None).build(seed=7)
    if split:
        buffer.observe_spaces(SPACES)
    return buffer


def _filled(split: bool, per: bool = False) -> SimpleReplayBuffer:
    buffer = _buffer(split, per)
    for t in _transitions(20):  # past the capacity: the ring wraps
        buffer.push(t)
    return buffer


def _assert_same(a: TransitionBatch, b: TransitionBatch) -> None:
    for name in ("obs", "act", "next_obs", "reward", "is_terminated", "is_truncated", "discount"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        assert torch.equal(x, y), name
    np.testing.assert_array_equal(a.ix_sample, b.ix_sample)


def _storage(buffer: SimpleReplayBuffer) -> TransitionStorage:
    storage = buffer._storage
    assert storage is not None
    return storage


@pytest.mark.parametrize("per", [False, True])
def test_batches_of_the_uint8_image_columns_equal_those_of_float32_storage(per: bool) -> None:
    plain, split = _filled(False, per), _filled(True, per)
    assert _storage(split).obs_images.dtype == np.uint8
    assert _storage(plain).images is None
    for size in (1, 5, 32):
        _assert_same(plain.batch(size), split.batch(size))


def test_the_image_columns_take_a_quarter_of_the_bytes_and_full_nbytes_counts_them() -> None:
    plain, split = _storage(_filled(False)), _storage(_filled(True))
    image_bytes_before = 2 * 16 * N_IMAGE * 4  # obs and next_obs, 16 rows, float32
    assert split.obs_images.nbytes + split.next_obs_images.nbytes == image_bytes_before // 4
    assert split.obs.nbytes == 16 * (PARTS.dim - N_IMAGE) * 4
    held = sum(a.nbytes for a in (split.obs, split.next_obs, split.obs_images, split.next_obs_images))
    held += split.act.nbytes + split.scalars.nbytes
    assert SimpleReplayBufferConfig(capacity=16).full_nbytes(SPACES) == held
    assert held == sum(a.nbytes for a in (plain.obs, plain.next_obs, plain.act, plain.scalars)) - (
        image_bytes_before * 3 // 4
    )


def test_a_saved_buffer_loads_both_ways_with_the_same_batches(tmp_path: Path) -> None:
    for source, split in (("new", True), ("old", False)):  # "old": as a float32 buffer (today's) saves
        (tmp_path / source).mkdir()
        _filled(split, per=True).save(tmp_path / source)
    with np.load(tmp_path / "new" / "replay_buffer.npz") as saved:  # the format of a float32 buffer
        assert saved["obs"].dtype == np.float32
        assert saved["obs"].shape == (16, PARTS.dim)
    for source, split in (("new", True), ("new", False), ("old", True), ("old", False)):
        loaded = _buffer(split, per=True)
        loaded.load(tmp_path / source)
        assert (_storage(loaded).images is not None) == split
        reference = _filled(source == "new", per=True)  # the buffer as it was saved
        for _ in range(3):
            _assert_same(reference.batch(8), loaded.batch(8))


@pytest.mark.parametrize("bad", [3.5, 256.0, -1.0, float("nan")])
def test_an_image_value_that_is_not_a_whole_number_in_0_255_is_refused_naming_the_part(bad: float) -> None:
    buffer = _buffer(True)
    t = _transitions(1)[0]
    next_obs = t.next_obs.copy()
    next_obs[PARTS.span("eye")][1] = bad
    with pytest.raises(ValueError, match=r"next_obs: image part 'eye' holds .* not a whole number in 0-255"):
        buffer.push(Transition(obs=t.obs, act=t.act, next_obs=next_obs, reward=0.0, is_terminated=False,
                               is_truncated=False, discount=0.99))  # fmt: skip
    assert len(buffer) == 0


def test_a_saved_file_whose_image_column_is_not_pixels_is_refused_naming_the_part(tmp_path: Path) -> None:
    plain = _buffer(False)
    t = _transitions(1)[0]
    obs = t.obs.copy()
    obs[PARTS.span("depth")] = 300.0
    plain.push(Transition(obs=obs, act=t.act, next_obs=t.next_obs, reward=0.0, is_terminated=False,
                          is_truncated=False, discount=0.99))  # fmt: skip
    plain.save(tmp_path)
    with pytest.raises(ValueError, match=r"replay_buffer.npz: column obs: image part 'depth' holds 300.0"):
        _buffer(True).load(tmp_path)


def test_a_buffer_holding_transitions_keeps_its_layout() -> None:
    # A fine-tuning run's buffer is filled from its dataset when built, before the trainer shows it the env.
    buffer, plain = _filled(False), _filled(False)
    buffer.observe_spaces(SPACES)
    for t in _transitions(3, seed=1):
        buffer.push(t)
        plain.push(t)
    storage = buffer._storage
    assert storage is not None
    assert storage.images is None
    assert storage.obs.dtype == np.float32
    assert storage.obs.shape == (16, PARTS.dim)
    _assert_same(buffer.batch(8), plain.batch(8))


def _params(agent: Any) -> dict[str, torch.Tensor]:
    modules: dict[str, torch.nn.Module] = agent._modules()
    return {f"{name}/{k}": v for name, m in modules.items() for k, v in m.state_dict().items()}


def _train_sac(model_dir: Path, max_opts: int, resume: Path | None = None) -> Any:
    config = TrainerConfig(max_opts=max_opts, warmup_period=8, record_interval=10, save_interval=12,
                           model_dir=str(model_dir), seed=5, checkpoint_buffer=True)  # fmt: skip
    env = GymEnvConfig(name="border_py/PixelTarget-v0")
    trainer = Trainer(config, env, NStepStepProcessorConfig(n_steps=1), SimpleReplayBufferConfig(capacity=30))
    sac = SacConfig(encoder=MultiInputConfig(image_features=8), actor_hidden=(8,), critic_hidden=(8,),
                    batch_size=4)  # fmt: skip
    agent = sac.build(env.build(seed=0).spaces, 3)
    trainer.train(agent, NullRecorder(), resume_from=resume)
    return agent


def test_a_multi_input_sac_run_stores_uint8_images_and_resumes_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[SimpleReplayBuffer] = []
    build = SimpleReplayBufferConfig.build

    def keep(self: SimpleReplayBufferConfig, seed: int) -> SimpleReplayBuffer:
        built.append(build(self, seed))
        return built[-1]

    monkeypatch.setattr(SimpleReplayBufferConfig, "build", keep)
    torch.set_num_threads(1)
    seed_everything(0)
    whole = _train_sac(tmp_path / "whole", 24)
    seed_everything(0)
    _train_sac(tmp_path / "split", 12)
    seed_everything(123)
    resumed = _train_sac(tmp_path / "split", 24, tmp_path / "split" / "12")
    assert len(built) == 3
    for buffer in built:
        assert _storage(buffer).images is not None
        assert _storage(buffer).obs_images.dtype == np.uint8
    whole_params, resumed_params = _params(whole), _params(resumed)
    assert whole_params.keys() == resumed_params.keys()
    assert [k for k in whole_params if not torch.equal(whole_params[k], resumed_params[k])] == []
