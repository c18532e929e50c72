"""PPO (and A2C) on pixels: the Nature CNN shared by the policy and the value, uint8 frames kept uint8 from
the env to the network, the preparation's bootstrap values computed only where they are needed, and a
pixel task learnt through the whole on-policy path (Trainer, SimpleStepProcessor, RolloutBuffer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from border_py import (
    DefaultEvaluatorConfig,
    NullRecorder,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    Trainer,
    TrainerConfig,
    Transition,
)
from border_py.agents import NatureCnn, NatureCnnConfig, Ppo, PpoConfig
from border_py.agents.on_policy.model import SharedTrunk
from border_py.base import Spaces
from border_py.replay_buffer.rollout import Rollout
from border_py.testing.pixels import PixelBanditEnvConfig

SHAPE = (4, 36, 36)
SPACES = Spaces(obs_shape=SHAPE, n_actions=3)


def _agent(**fields: object) -> Ppo:
    config = PpoConfig(encoder=NatureCnnConfig(), hidden=(16,), activation="relu", **fields)  # type: ignore[arg-type]
    return config.build(SPACES, seed=0)


def _frames(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(0, 256, (*shape, *SHAPE)).astype(np.uint8)


def test_an_encoder_refuses_observation_normalisation() -> None:
    with pytest.raises(ValueError, match="normalize_obs is for flat observations"):
        PpoConfig(encoder=NatureCnnConfig(), normalize_obs=True)


def test_the_policy_and_the_value_share_one_trunk_initialised_orthogonally() -> None:
    net = _agent().parts.model.net
    assert isinstance(net.body, SharedTrunk)
    assert isinstance(net.body.encoder, NatureCnn)
    conv = net.body.encoder.convs[0]
    assert isinstance(conv, torch.nn.Conv2d)
    w = conv.weight.detach().reshape(conv.out_channels, -1)
    # Orthogonal with gain sqrt(2): the 32 rows are orthogonal, each of squared norm 2.
    assert torch.allclose(w @ w.T, 2.0 * torch.eye(conv.out_channels), atol=1e-4)
    assert float(conv.bias.detach().abs().max()) == 0.0  # type: ignore[union-attr]


def test_greedy_action_on_uint8_frames_is_the_argmax_on_scaled_floats() -> None:
    agent = _agent()
    agent.eval()
    obs = _frames(np.random.default_rng(0), 2)
    net = agent.parts.model.net
    expected = net.policy(torch.from_numpy(obs).float() / 255.0)[1].argmax(1).tolist()
    assert [int(a) for a in agent.sample_batch(list(obs))] == expected
    assert int(agent.sample(obs[0])) == expected[0]


def _rollout(rng: np.random.Generator, n_steps: int, num_envs: int) -> Rollout:
    """A rollout whose ``next_obs`` is the next ``obs`` except at episode ends; sub-env 0 is truncated at
    step 2, sub-env 1 terminated at step 3."""
    frames = _frames(rng, n_steps + 1, num_envs)
    next_obs = frames[1:].copy()
    truncated, terminated = (
        np.zeros((n_steps, num_envs), np.float32),
        np.zeros((n_steps, num_envs), np.float32),
    )
    truncated[2, 0], terminated[3, 1] = 1.0, 1.0
    next_obs[2, 0], next_obs[3, 1] = _frames(rng, 2)
    return Rollout(
        obs=torch.from_numpy(frames[:-1]),
        act=torch.zeros(n_steps, num_envs, dtype=torch.int64),
        next_obs=torch.from_numpy(next_obs),
        reward=torch.ones(n_steps, num_envs),
        is_terminated=torch.from_numpy(terminated),
        is_truncated=torch.from_numpy(truncated),
        discount=torch.full((n_steps, num_envs), 0.99),
    )


def test_bootstrap_values_are_the_networks_where_they_count() -> None:
    agent, rollout = _agent(), _rollout(np.random.default_rng(1), 6, 2)
    net = agent.parts.model.net
    with torch.no_grad():
        value = net.value(rollout.obs.reshape(-1, *SHAPE)).reshape(6, 2)
        full = net.value(rollout.next_obs.reshape(-1, *SHAPE)).reshape(6, 2)
        got = agent._next_values(rollout, value)
    counted = rollout.is_terminated == 0  # after a termination the value is multiplied by 0
    assert torch.allclose(got[counted], full[counted], atol=1e-6)
    assert float((got - full)[counted].abs().max()) < 1e-6


def test_a_rollout_keeps_pixels_uint8_and_saves_them_so(tmp_path: Path) -> None:
    buffer = RolloutBufferConfig(n_steps=2).build(seed=0)
    frames = _frames(np.random.default_rng(2), 3)

    def step(t: int, obs: np.ndarray, next_obs: np.ndarray) -> Transition:
        return Transition(
            obs=obs,
            act=np.array(t),
            next_obs=next_obs,
            reward=1.0,
            is_terminated=False,
            is_truncated=False,
            discount=0.99,
        )

    buffer.push(step(0, frames[0], frames[1]))
    with pytest.raises(ValueError, match="float32/float32 in a buffer of uint8 pixels"):
        buffer.push(step(1, frames[1].astype(np.float32), frames[2].astype(np.float32)))
    buffer.save(tmp_path)
    loaded = RolloutBufferConfig(n_steps=2).build(seed=0)
    loaded.load(tmp_path)
    loaded.push(step(1, frames[1], frames[2]))
    rollout = loaded.batch(2)
    assert rollout.obs.dtype == torch.uint8
    assert rollout.next_obs.dtype == torch.uint8
    assert np.array_equal(rollout.obs.numpy()[:, 0], frames[:2])


@pytest.mark.functional
def test_ppo_with_the_nature_cnn_learns_a_pixel_task(tmp_path: Path) -> None:
    """A random policy scores 5 of 10; the greedy one reads the newest frame and scores 10."""
    env = PixelBanditEnvConfig()
    agent = PpoConfig(
        encoder=NatureCnnConfig(),
        hidden=(64,),
        activation="relu",
        n_epochs=4,
        batch_size=64,
        lr=5e-4,
        ent_coef=0.01,
    ).build(Spaces(obs_shape=SHAPE, n_actions=2), seed=0)
    trainer = Trainer(
        TrainerConfig(
            max_env_steps=3_072,
            opt_interval=128,
            warmup_period=0,
            eval_interval=4,
            record_interval=4,
            save_interval=None,
            model_dir=str(tmp_path),
            seed=0,
        ),
        env,
        SimpleStepProcessorConfig(gamma=0.9),
        RolloutBufferConfig(n_steps=128),
    )
    evaluator = DefaultEvaluatorConfig(n_episodes=5).build(env.build(seed=1))
    assert trainer.train(agent, NullRecorder(), evaluator).best_score >= 9.0


def _spread_logits(agent: Ppo, obs: np.ndarray) -> Ppo:
    """The action head scaled so the frames' logits differ by units: at its orthogonal 0.01 initialisation
    every random frame picks one action by hundredths, where a wrong export would not show."""
    head = agent.parts.model.net.action_net
    with torch.no_grad():
        logits = agent.parts.model.net.policy(torch.from_numpy(obs))[1]
        head.bias.sub_(logits.mean(0))
        scale = 20.0 / float((logits - logits.mean(0)).abs().max())
        head.weight.mul_(scale)
        head.bias.mul_(scale)
    return agent


def test_a_pixel_ppo_policy_exports_to_numpy_and_onnx_acting_as_the_agent(tmp_path: Path) -> None:
    from border_py.export import NumpyPolicy, export_numpy

    obs = _frames(np.random.default_rng(3), 200)
    agent = _spread_logits(_agent(), obs)
    agent.eval()
    expected = np.array([int(a) for a in agent.sample_batch(list(obs))])
    assert len(set(expected.tolist())) == 3  # every action occurs: the comparison can fail
    numpy_policy = NumpyPolicy.load(export_numpy(agent, tmp_path / "numpy"))
    assert (numpy_policy.act(obs) == expected).all()
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
    from border_py.export import OnnxPolicy, export_onnx

    onnx_policy = OnnxPolicy.load(export_onnx(agent, tmp_path / "onnx"))
    assert (onnx_policy.act(obs) == expected).all()


@pytest.mark.functional
def test_a2c_with_the_nature_cnn_learns_the_pixel_task_too(tmp_path: Path) -> None:
    """A2C shares the encoder with PPO through `OnPolicyConfig`: SB3's 5-step rollouts, one RMSprop step."""
    from border_py.agents import A2cConfig

    env = PixelBanditEnvConfig()
    agent = A2cConfig(
        encoder=NatureCnnConfig(), hidden=(64,), activation="relu", lr=1e-3, ent_coef=0.01
    ).build(Spaces(obs_shape=SHAPE, n_actions=2), seed=0)
    trainer = Trainer(
        TrainerConfig(max_env_steps=3_000, opt_interval=5, eval_interval=100, record_interval=100,
                      model_dir=str(tmp_path), seed=0),
        env,
        SimpleStepProcessorConfig(gamma=0.9),
        RolloutBufferConfig(n_steps=5),
    )  # fmt: skip
    evaluator = DefaultEvaluatorConfig(n_episodes=5).build(env.build(seed=1))
    assert trainer.train(agent, NullRecorder(), evaluator).best_score >= 9.0


def test_a_bfloat16_update_runs_the_network_in_bf16_and_the_losses_in_float32() -> None:
    """``update_dtype: bfloat16`` puts the minibatch's forward pass under autocast (the CNN's outputs come
    out bf16) and computes the losses in float32 from them: close to the float32 update's, not equal."""
    rng = np.random.default_rng(3)
    data = {
        "obs": torch.from_numpy(_frames(rng, 32)),
        "act": torch.from_numpy(rng.integers(0, 3, 32)),
        "advantage": torch.from_numpy(rng.standard_normal(32).astype(np.float32)),
        "old_log_prob": torch.full((32,), float(np.log(1 / 3))),
        "old_value": torch.zeros(32),
        "returns": torch.ones(32),
    }
    seen: list[torch.dtype] = []
    losses = {}
    for dtype in ("float32", "bfloat16"):
        agent = _agent(update_dtype=dtype, normalize_advantage=False)
        hook = agent.parts.model.net.register_forward_hook(lambda _m, _i, out: seen.append(out[1].dtype))
        losses[dtype] = agent._minibatch(data, None, clip=0.1)
        hook.remove()
    assert seen == [torch.float32, torch.bfloat16]
    full, half = losses["float32"], losses["bfloat16"]
    assert half["loss"].dtype == torch.float32
    assert not torch.equal(full["value_loss"], half["value_loss"])
    for key in ("loss", "policy_loss", "value_loss", "entropy"):
        assert float(half[key].detach()) == pytest.approx(float(full[key].detach()), rel=0.02, abs=1e-3), key
