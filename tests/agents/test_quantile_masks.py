"""Invalid-action masking in QR-DQN and IQN: their targets bootstrap from the next state's best legal
action (any action where none is legal, as DQN's), and over a short run on border_py's masked env neither
takes a forbidden action in training, in evaluation or through its exported numpy and ONNX policies (the
env counts them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pytest
import torch
from torch import nn

from border_py import BufferedRecorder, SimpleReplayBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import EpsilonGreedyConfig, EvenTaus, Iqn, IqnConfig, QrDqn, QrDqnConfig
from border_py.agents.iqn.losses import greedy_quantiles, quantile_huber_loss
from border_py.base import ObsParts, Spaces
from border_py.envs import GymEnvConfig
from border_py.envs.masked_envs import PickDistinctEnv
from border_py.evaluator import DefaultEvaluatorConfig
from border_py.export import NumpyPolicy, export_numpy
from border_py.replay_buffer import TransitionBatch
from border_py.trainer import Trainer

N = 4
PARTS = ObsParts.of({"action_mask": (N,), "x": (3,)})
SPACES = Spaces(obs_shape=(PARTS.dim,), n_actions=N, obs_parts=PARTS)
ENV = "border_py/PickDistinct-v0"
T = TypeVar("T")

# The next states' masks: rows 0, 1 and 3 allow some actions, row 2 none (it falls back to all).
NEXT_MASKS = [[1, 0, 1, 1], [1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 0, 0]]
# Two quantiles of each of the 4 actions (quantile-major), whose means are 1, 4, 2 and 3: the best legal
# actions of the rows above are 3, 2, 1 (all allowed) and 1.
QUANTILES = [[0.0, 3.0, 2.0, 2.0], [2.0, 5.0, 2.0, 4.0]]
BEST_LEGAL_QUANTILES = [[2.0, 4.0], [2.0, 2.0], [3.0, 5.0], [3.0, 5.0]]
# IQN's quantiles are the same at every fraction here (a head of constant output): each action's value.
VALUES = [1.0, 4.0, 2.0, 3.0]


def test_the_greedy_quantiles_are_the_best_legal_actions_by_hand() -> None:
    # Two items, 2 quantiles, 3 actions. Item 0's means are (1, 4, 2.5): action 1 unmasked, but its mask
    # allows 0 and 2, so action 2, quantiles (1, 4). Item 1 allows none: the best of all, action 0.
    z = torch.tensor([[[0.0, 2.0, 1.0], [2.0, 6.0, 4.0]], [[5.0, 0.0, 1.0], [7.0, 0.0, 1.0]]])
    legal = torch.tensor([[True, False, True], [False, False, False]])
    torch.testing.assert_close(greedy_quantiles(z, legal), torch.tensor([[1.0, 4.0], [5.0, 7.0]]))
    torch.testing.assert_close(greedy_quantiles(z), torch.tensor([[2.0, 6.0], [5.0, 7.0]]))


def _batch() -> TransitionBatch:
    """Four transitions, rewarded 0 and discounted 1 (the target is the next quantiles themselves),
    whose next observations carry `NEXT_MASKS`."""
    rng = np.random.default_rng(0)
    next_obs = np.concatenate([np.array(NEXT_MASKS, np.float32), rng.normal(size=(4, 3))], axis=1)
    obs = np.concatenate([np.ones((4, N)), rng.normal(size=(4, 3))], axis=1)
    return TransitionBatch(
        obs=torch.as_tensor(obs, dtype=torch.float32),
        act=torch.tensor([0, 1, 2, 3]),
        next_obs=torch.as_tensor(next_obs, dtype=torch.float32),
        reward=torch.zeros(4),
        is_terminated=torch.zeros(4),
        is_truncated=torch.zeros(4),
        discount=torch.ones(4),
        ix_sample=np.arange(4, dtype=np.int64),
    )


def _constant_output(module: nn.Module, bias: list[float]) -> None:
    """Makes ``module``'s last linear layer give ``bias`` whatever its input."""
    last = [m for m in module.modules() if isinstance(m, nn.Linear)][-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.copy_(torch.tensor(bias))


def test_qrdqns_target_is_the_next_states_best_legal_action() -> None:
    agent = QrDqn(QrDqnConfig(n_quantiles=2, hidden=(8,), batch_size=4), SPACES, seed=0)
    _constant_output(agent.parts.net.target.net, [q for row in QUANTILES for q in row])
    batch = _batch()
    _, priority, _ = agent._loss(batch)
    with torch.no_grad():
        pred = agent.parts.net.net(batch.obs)[torch.arange(4), :, batch.act]
    taus = torch.tensor([[0.25, 0.75]]).expand(4, 2)
    expected = quantile_huber_loss(pred, taus, torch.tensor(BEST_LEGAL_QUANTILES), 1.0)
    torch.testing.assert_close(priority, expected)


def test_iqns_target_is_the_next_states_best_legal_action() -> None:
    config = IqnConfig(hidden=(8,), embed_dim=8, n_cos=4, head_hidden=(8,), pred_taus=EvenTaus(n=2))
    agent = Iqn(config, SPACES, seed=0)
    _constant_output(agent.parts.net.target.head, VALUES)
    batch = _batch()
    _, priority, _ = agent._loss(batch)
    taus = torch.tensor([[0.25, 0.75]]).expand(4, 2)
    with torch.no_grad():
        pred = agent.parts.net.net(batch.obs, taus)[torch.arange(4), :, batch.act]
    # The values of actions 3, 2, 1 (none legal: all) and 1; one column stands for the target's fractions,
    # whose quantiles are all the same.
    target = torch.tensor([[3.0], [2.0], [4.0], [4.0]])
    torch.testing.assert_close(priority, quantile_huber_loss(pred, taus, target, 1.0))


def _small_agent(name: str, spaces: Spaces) -> QrDqn | Iqn:
    """A small agent that explores half the time throughout (its random actions must be legal too)."""
    explorer = EpsilonGreedyConfig(eps_start=0.5, eps_final=0.5)
    if name == "qrdqn":
        return QrDqnConfig(n_quantiles=4, hidden=(16,), batch_size=16, explorer=explorer).build(spaces, 0)
    iqn = IqnConfig(hidden=(16,), embed_dim=16, n_cos=8, head_hidden=(16,), batch_size=16, explorer=explorer)
    return iqn.build(spaces, 0)


def _forbidden_in(play: Callable[[], T]) -> tuple[int, T]:
    """How many forbidden picks every `PickDistinctEnv` in this process took during ``play()``, and what
    it returned."""
    before = PickDistinctEnv.forbidden_in_process
    out = play()
    return PickDistinctEnv.forbidden_in_process - before, out


def _episodes(act: Callable[[npt.NDArray[np.float32]], Any], n: int) -> int:
    """Plays ``n`` episodes of the masked env acting by ``act`` on its flat observations; the steps
    taken."""
    env = GymEnvConfig(name=ENV).build(seed=7)
    steps = 0
    for _ in range(n):
        obs, done = env.reset(), False
        while not done:
            step, _ = env.step(np.asarray(act(obs)))
            obs, done, steps = step.obs, step.is_terminated or step.is_truncated, steps + 1
    return steps


@pytest.mark.parametrize("name", ["qrdqn", "iqn"])
def test_a_short_run_on_the_masked_env_never_takes_a_forbidden_action(name: str, tmp_path: Path) -> None:
    env_config = GymEnvConfig(name=ENV)
    agent = _small_agent(name, env_config.build(seed=0).spaces)
    trainer = Trainer(
        TrainerConfig(max_env_steps=140, warmup_period=40, eval_interval=50, record_interval=50),
        env_config,
        SimpleStepProcessorConfig(gamma=0.9),
        SimpleReplayBufferConfig(capacity=1000),
    )
    evaluator = DefaultEvaluatorConfig(n_episodes=5).build(env_config.build(seed=1))
    forbidden, result = _forbidden_in(lambda: trainer.train(agent, BufferedRecorder(), evaluator))
    assert forbidden == 0
    assert (result.opt_steps, len(result.evaluations)) == (100, 2)  # it learnt and was evaluated

    agent.eval()  # through torch, one observation at a time (the evaluator acted through numpy)
    assert _forbidden_in(lambda: _episodes(agent.sample, 10)) == (0, 40)  # 4 legal picks an episode
    exported = NumpyPolicy.load(export_numpy(agent, tmp_path))
    assert exported.action_mask == (0, 8)
    assert _forbidden_in(lambda: _episodes(exported.act, 10)) == (0, 40)


@pytest.mark.parametrize("name", ["qrdqn", "iqn"])
def test_the_onnx_export_never_takes_a_forbidden_action(name: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")
    from border_py.export import OnnxPolicy, export_onnx

    agent = _small_agent(name, GymEnvConfig(name=ENV).build(seed=0).spaces)
    policy = OnnxPolicy.load(export_onnx(agent, tmp_path))
    assert _forbidden_in(lambda: _episodes(policy.act, 10)) == (0, 40)
