"""A value-based agent of one's own on the documented base (``examples/custom_value_agent.py``, the
tutorial's Munchausen DQN): short, its loss is the paper's, and it trains, resumes exactly, exports and runs
through the run layer as the library's agents do."""

from __future__ import annotations

import ast
import io
import math
import tokenize
from pathlib import Path

import attrs
import numpy as np
import pytest
import torch

from border_py import SimpleReplayBufferConfig
from border_py.base import Spaces
from border_py.export import NumpyPolicy, export_numpy
from border_py.replay_buffer import TransitionBatch
from border_py.run import TrainOptions, train, with_trainer
from border_py.run.pairing import check_agent_batches
from examples.custom_value_agent import EXPERIMENT, MunchausenDqn, MunchausenDqnConfig
from tests.agents.random_buffer import random_buffer

AGENT_FILE = Path(__file__).resolve().parents[2] / "examples" / "custom_value_agent.py"
SMALL = MunchausenDqnConfig(hidden=(16,), batch_size=16, target_update_interval=10)
QUIET = TrainOptions(progress=False, quiet=True)


def code_lines(source: str) -> int:
    """The lines that hold code: not blank, not only a comment, not part of a docstring (a string
    statement first in a module, class or function)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (*skipped, tokenize.ENDMARKER):
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def test_code_lines_skip_blanks_comments_and_docstrings() -> None:
    source = (
        '"""Doc\nstring."""\n\n# note\nx = (1,\n     2)  # two lines\n\n\ndef f() -> None:\n    """Doc."""\n'
    )
    assert code_lines(source) == 3


def test_the_agent_with_its_config_and_experiment_is_at_most_70_lines_of_code() -> None:
    assert code_lines(AGENT_FILE.read_text()) <= 70


def test_it_learns_from_the_buffers_batches_and_the_run_layer_pairs_them() -> None:
    agent = SMALL.build(Spaces(obs_shape=(4,), n_actions=2), seed=0)
    assert isinstance(agent, MunchausenDqn)
    check_agent_batches(agent, SimpleReplayBufferConfig(capacity=100))
    records = [agent.opt(random_buffer(32, seed=1)) for _ in range(30)]
    losses = [r.get_scalar("train/loss") for r in records if r is not None]
    assert len(losses) == 30
    assert np.mean(losses[-5:]) < np.mean(losses[:5])
    assert agent.opt_steps == 30


def test_the_loss_is_the_munchausen_target_worked_out_by_hand() -> None:
    # One linear layer without hidden ones, no biases, one-hot states s = (1, 0) and s' = (0, 1): the
    # weight's column j is the Q-values at state j. tau 0.5, alpha 0.9, l0 -1.
    online = torch.tensor([[2.0, 0.0], [1.0, 0.0]])  # q(s) = (2, 1)
    target = torch.tensor([[math.log(3), 0.5 * math.log(3)], [0.0, 0.0]])  # q'(s) = (log 3, 0)

    def agent(log_pi_clip: float) -> MunchausenDqn:
        config = MunchausenDqnConfig(entropy_tau=0.5, alpha=0.9, log_pi_clip=log_pi_clip, hidden=())
        built = config.build(Spaces(obs_shape=(2,), n_actions=2), seed=0)
        built.parts.net.net.load_state_dict({"0.weight": online, "0.bias": torch.zeros(2)})
        built.parts.net.target.load_state_dict({"0.weight": target, "0.bias": torch.zeros(2)})
        return built

    # At s: q'/tau = (log 9, 0), pi' = (0.9, 0.1), tau log pi' = (0.5 log 0.9, 0.5 log 0.1)
    # = (-0.0526803, -1.1512925). Bonus of action 0: 0.9 * -0.0526803 = -0.0474122 (not clipped); of
    # action 1: 0.9 * max(-1.1512925, -1) = -0.9 (clipped), unclipped 0.9 * -1.1512925 = -1.0361633.
    # At s': q' = (0.5 log 3, 0), q'/tau = (log 3, 0), pi' = (3/4, 1/4), tau log pi' = (0.5 log 3/4,
    # 0.5 log 1/4); q' - tau log pi' = (0.5 log 4, 0.5 log 4) for both actions, so soft_v = log 2 = 0.6931472.
    # Items (action, terminated), reward 1, discount 0.99:
    #   (0, no):  target = 1 - 0.0474122 + 0.99 * 0.6931472 = 1.6388035, q = 2, |TD| = 0.3611965
    #   (1, yes): target = 1 - 0.9 = 0.1,                               q = 1, |TD| = 0.9
    #   (1, no):  target = 1 - 0.9 + 0.99 * 0.6931472 = 0.7862157,      q = 1, |TD| = 0.2137843
    # Every |TD| is under 1, so the Huber loss is 0.5 TD^2: mean 0.1643611; weighted (2, 0, 1) it is
    # (2 * 0.0652315 + 0.0228518) / 3 = 0.0511049.
    s, s_next = [1.0, 0.0], [0.0, 1.0]

    def batch(weight: torch.Tensor | None = None) -> TransitionBatch:
        return TransitionBatch(
            obs=torch.tensor([s, s, s]),
            act=torch.tensor([0, 1, 1]),
            next_obs=torch.tensor([s_next, s_next, s_next]),
            reward=torch.ones(3),
            is_terminated=torch.tensor([0.0, 1.0, 0.0]),
            is_truncated=torch.zeros(3),
            discount=torch.full((3,), 0.99),
            ix_sample=np.arange(3),
            weight=weight,
        )

    clipped = agent(log_pi_clip=-1.0)
    loss, priority, q_mean = clipped._loss(batch())
    np.testing.assert_allclose(priority.numpy(), [0.3611965, 0.9, 0.2137843], atol=1e-6)
    assert float(loss.detach()) == pytest.approx(0.1643611, abs=1e-6)
    assert float(q_mean) == pytest.approx(4.0 / 3.0)
    weighted, _, _ = clipped._loss(batch(torch.tensor([2.0, 0.0, 1.0])))
    assert float(weighted.detach()) == pytest.approx(0.0511049, abs=1e-6)
    # With l0 -10 nothing is clipped: action 1 keeps its whole bonus -1.0361633, so its targets are
    #   (1, yes): 1 - 1.0361633 = -0.0361633,                  |TD| = 1.0361633
    #   (1, no):  1 - 1.0361633 + 0.99 * 0.6931472 = 0.6500524, |TD| = 0.3499476
    _, unclipped, _ = agent(log_pi_clip=-10.0)._loss(batch())
    np.testing.assert_allclose(unclipped.numpy(), [0.3611965, 1.0361633, 0.3499476], atol=1e-6)


def test_save_then_load_gives_the_same_actions_and_next_step(tmp_path: Path) -> None:
    agent = SMALL.build(Spaces(obs_shape=(4,), n_actions=2), seed=0)
    for _ in range(12):
        agent.opt(random_buffer(32, seed=1))
    files = agent.save_params(tmp_path)
    assert sorted(p.name for p in files) == ["mdqn.pt", "mdqn_tgt.pt", "state.pt"]
    loaded = SMALL.build(Spaces(obs_shape=(4,), n_actions=2), seed=7)
    loaded.load_params(tmp_path)
    obs = np.random.default_rng(2).normal(size=(40, 4)).astype(np.float32)
    assert [int(agent.sample(o)) for o in obs] == [int(loaded.sample(o)) for o in obs]  # explored alike
    after, loaded_after = agent.opt(random_buffer(32, seed=3)), loaded.opt(random_buffer(32, seed=3))
    assert after is not None
    assert loaded_after is not None
    assert after["train/loss"] == loaded_after["train/loss"]
    x = torch.from_numpy(obs)
    assert torch.equal(agent.parts.net.target(x), loaded.parts.net.target(x))


def test_the_exported_policy_acts_as_the_agent_in_eval_mode(tmp_path: Path) -> None:
    agent = SMALL.build(Spaces(obs_shape=(4,), n_actions=2), seed=0)
    for _ in range(20):
        agent.opt(random_buffer(32, seed=1))
    policy = NumpyPolicy.load(export_numpy(agent, tmp_path / "exported"))
    agent.eval()
    obs = np.random.default_rng(4).normal(scale=2.0, size=(200, 4)).astype(np.float32)
    np.testing.assert_array_equal(policy.act(obs), [int(agent.sample(o)) for o in obs])


def _leaves(checkpoint: Path) -> dict[str, torch.Tensor]:
    """Every tensor of every file of a checkpoint, by file and key (nested mappings flattened)."""
    out: dict[str, torch.Tensor] = {}

    def walk(value: object, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{key}.{k}")
        elif isinstance(value, torch.Tensor):
            out[key] = value

    for file in sorted(checkpoint.glob("*.pt")):
        walk(torch.load(file, weights_only=True), file.name)
    return out


def test_through_the_run_layer_it_trains_on_cartpole_and_resumes_exactly(tmp_path: Path) -> None:
    # Under a second: a default-tier test. The run layer checks the pairing and evaluates through the
    # agent's greedy_policy (numpy), as for the library's agents.
    small = attrs.evolve(EXPERIMENT, agent=SMALL, replay_buffer=SimpleReplayBufferConfig(capacity=1_000))
    schedule = {"warmup_period": 100, "eval_interval": 40, "save_interval": 40, "checkpoint_buffer": True}
    whole = train(with_trainer(small, max_opts=80, model_dir=str(tmp_path / "whole"), **schedule), QUIET)
    train(with_trainer(small, max_opts=40, model_dir=str(tmp_path / "split"), **schedule), QUIET)
    resumed = train(
        with_trainer(small, max_opts=80, model_dir=str(tmp_path / "split"), **schedule),
        attrs.evolve(QUIET, resume=True),
    )
    assert (resumed.opt_steps, resumed.env_steps) == (whole.opt_steps, whole.env_steps) == (80, 180)
    a, b = _leaves(tmp_path / "whole" / "80"), _leaves(tmp_path / "split" / "80")
    assert a.keys() == b.keys()
    assert "mdqn.pt.0.weight" in a
    assert [k for k in a if not torch.equal(a[k], b[k])] == []
    assert resumed.best_score == whole.best_score
