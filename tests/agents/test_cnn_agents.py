"""DQN and IQN on pixels: the Nature CNN scales uint8 frames itself, the shapes are checked, and both learn a
pixel task through the whole path (Trainer, FrameStackStepProcessor, FrameReplayBuffer)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import pytest
import torch

from border_py import (
    DefaultEvaluatorConfig,
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
    NullRecorder,
    Trainer,
    TrainerConfig,
)
from border_py.agents import (
    Dqn,
    DqnConfig,
    EpsilonGreedyConfig,
    Iqn,
    IqnConfig,
    NatureCnn,
    NatureCnnConfig,
    PpoConfig,
    QrDqn,
    QrDqnConfig,
    UniformTaus,
)
from border_py.base import Spaces
from border_py.replay_buffer import TransitionBatch
from border_py.testing.pixels import PixelBanditEnvConfig


def test_nature_cnn_scales_uint8_frames_on_its_own() -> None:
    cnn = NatureCnn((4, 36, 36))
    frames = torch.randint(0, 256, (3, 4, 36, 36), dtype=torch.uint8)
    assert cnn(frames).shape == (3, cnn.out_features)
    assert torch.allclose(cnn(frames), cnn(frames.float() / 255.0))


def test_nature_cnn_refuses_shapes_it_cannot_take() -> None:
    with pytest.raises(ValueError, match="channels, height, width"):
        NatureCnnConfig().build((84, 84))
    with pytest.raises(ValueError, match="too small"):
        NatureCnnConfig().build((4, 20, 20))


def test_an_encoder_takes_the_envs_observation_shape_and_refuses_a_flat_one() -> None:
    config = DqnConfig(encoder=NatureCnnConfig(), hidden=(8,))
    with pytest.raises(ValueError, match=r"\(channels, height, width\) observations, got \(5184,\)"):
        Dqn(config, Spaces(obs_shape=(4 * 36 * 36,), n_actions=2), seed=0)
    assert Dqn(config, Spaces(obs_shape=(4, 36, 36), n_actions=2), seed=0).obs_shape == (4, 36, 36)


def test_greedy_action_on_uint8_frames_equals_the_network_on_scaled_floats() -> None:
    config = DqnConfig(encoder=NatureCnnConfig(), hidden=(16,))
    agent = Dqn(config, Spaces(obs_shape=(4, 36, 36), n_actions=3), seed=0)
    agent.eval()
    obs = np.random.default_rng(0).integers(0, 256, (4, 36, 36)).astype(np.uint8)
    expected = agent.parts.net.net(torch.from_numpy(obs).float()[None] / 255.0).argmax(1).item()
    assert int(agent.sample(obs)) == expected
    assert [int(a) for a in agent.sample_batch([obs, obs])] == [expected, expected]


def _train_on_pixels(agent: Dqn | Iqn, tmp_path: Path) -> float:
    env = PixelBanditEnvConfig()
    trainer = Trainer(
        TrainerConfig(
            max_opts=600,
            opt_interval=1,
            warmup_period=100,
            eval_interval=100,
            record_interval=100,
            save_interval=None,
            model_dir=str(tmp_path),
            seed=0,
        ),
        env,
        FrameStackStepProcessorConfig(n_steps=1, gamma=0.9),
        FrameReplayBufferConfig(capacity=2_000, stack=4),
    )
    evaluator = DefaultEvaluatorConfig(n_episodes=5).build(env.build(seed=1))
    return trainer.train(agent, NullRecorder(), evaluator).best_score


_EXPLORER = EpsilonGreedyConfig(eps_start=1.0, eps_final=0.05, final_step=300)


@pytest.mark.functional
def test_dqn_with_the_nature_cnn_learns_a_pixel_task(tmp_path: Path) -> None:
    """A random policy scores 5 of 10; the greedy one reads the newest frame and scores 10."""
    config = DqnConfig(
        encoder=NatureCnnConfig(),
        hidden=(64,),
        batch_size=32,
        lr=5e-4,
        target_update_interval=50,
        explorer=_EXPLORER,
    )
    agent = Dqn(config, Spaces(obs_shape=(4, 36, 36), n_actions=2), seed=0)
    assert _train_on_pixels(agent, tmp_path) >= 9.0


@pytest.mark.functional
@pytest.mark.parametrize("update_dtype", ["float32", "bfloat16"])
def test_iqn_with_the_nature_cnn_learns_a_pixel_task(
    tmp_path: Path, update_dtype: Literal["float32", "bfloat16"]
) -> None:
    """In bf16 too: the IQN Pong campaign run's setting."""
    config = IqnConfig(
        update_dtype=update_dtype,
        encoder=NatureCnnConfig(),
        hidden=(),
        embed_dim=64,
        n_cos=16,
        head_hidden=(64,),
        batch_size=32,
        lr=5e-4,
        target_update_interval=50,
        pred_taus=UniformTaus(n=8),
        target_taus=UniformTaus(n=8),
        explorer=_EXPLORER,
    )
    agent = Iqn(config, Spaces(obs_shape=(4, 36, 36), n_actions=2), seed=0)
    assert _train_on_pixels(agent, tmp_path) >= 9.0


class _OneBatch:
    """A replay buffer that hands out one batch and keeps the priorities it is given."""

    def __init__(self, batch: TransitionBatch) -> None:
        self.the_batch, self.priorities = batch, list[np.ndarray]()

    def batch(self, size: int) -> TransitionBatch:
        return self.the_batch

    def update_priority(self, indices: np.ndarray, td_errors: np.ndarray) -> None:
        self.priorities.append(td_errors)

    def __len__(self) -> int:
        return 1_000


_DTYPES: tuple[Literal["float32", "bfloat16"], ...] = ("float32", "bfloat16")


def _pixel_agent(algo: str, update_dtype: Literal["float32", "bfloat16"]) -> Dqn | QrDqn | Iqn:
    spaces = Spaces(obs_shape=(4, 36, 36), n_actions=2)
    cnn = NatureCnnConfig()
    if algo == "dqn":
        return Dqn(DqnConfig(encoder=cnn, hidden=(16,), update_dtype=update_dtype), spaces, seed=0)
    if algo == "qrdqn":
        quantiles = QrDqnConfig(encoder=cnn, hidden=(16,), n_quantiles=8, update_dtype=update_dtype)
        return QrDqn(quantiles, spaces, seed=0)
    config = IqnConfig(
        encoder=cnn, hidden=(), embed_dim=16, n_cos=8, head_hidden=(16,), update_dtype=update_dtype
    )
    return Iqn(config, spaces, seed=0)


@pytest.mark.parametrize("algo", ["dqn", "qrdqn", "iqn"])
def test_a_bfloat16_update_runs_the_network_in_bf16_and_the_loss_in_float32(algo: str) -> None:
    """``update_dtype: bfloat16`` computes the loss under autocast: the CNN's outputs come out bf16, the loss
    and the priorities float32, close to the float32 update's and not equal to it."""
    rng = np.random.default_rng(3)

    def frames() -> torch.Tensor:
        return torch.from_numpy(rng.integers(0, 256, (16, 4, 36, 36), dtype=np.uint8))

    batch = TransitionBatch(
        obs=frames(),
        act=torch.from_numpy(rng.integers(0, 2, 16)),
        next_obs=frames(),
        reward=torch.from_numpy(rng.standard_normal(16).astype(np.float32)),
        is_terminated=torch.zeros(16),
        is_truncated=torch.zeros(16),
        discount=torch.full((16,), 0.99),
        ix_sample=np.arange(16),
        weight=torch.ones(16),
    )
    seen: dict[str, set[torch.dtype]] = {}
    losses, priorities = {}, {}
    for dtype in _DTYPES:
        # Seeded alike, so IQN's fraction generator draws the same fractions on both sides.
        agent, buffer = _pixel_agent(algo, dtype), _OneBatch(batch)
        cnn = next(m for m in agent.parts.net.net.modules() if isinstance(m, NatureCnn))
        seen[dtype] = set()
        hook = cnn.register_forward_hook(lambda _m, _i, out, d=dtype: seen[d].add(out.dtype))
        record = agent.opt(buffer)
        hook.remove()
        assert record is not None
        losses[dtype] = record.get_scalar("train/loss")
        (priorities[dtype],) = buffer.priorities
    assert seen == {"float32": {torch.float32}, "bfloat16": {torch.bfloat16}}
    assert priorities["bfloat16"].dtype == np.float32
    assert losses["bfloat16"] != losses["float32"]
    assert losses["bfloat16"] == pytest.approx(losses["float32"], rel=0.02)
    np.testing.assert_allclose(priorities["bfloat16"], priorities["float32"], rtol=0.05, atol=0.02)


def test_an_update_dtype_of_neither_kind_is_refused_naming_it() -> None:
    """A typo in Python (no type checker) would otherwise train in float32 without a word."""
    with pytest.raises(ValueError, match="'update_dtype' must be in"):
        DqnConfig(update_dtype="bf16")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'update_dtype' must be in"):
        PpoConfig(update_dtype="half")  # type: ignore[arg-type]
