"""DQN: loss math by hand, one opt step on synthetic batches, targets, priorities, save and load."""

from __future__ import annotations

import os
import pickle
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from border_py import PerConfig
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.dqn import EpsilonGreedy
from border_py.agents.dqn.losses import next_state_value, td_loss, td_target
from border_py.base import Spaces
from border_py.checkpoint import CheckpointError
from tests.agents.random_buffer import random_buffer

_buffer = partial(random_buffer, discount=0.9)


# --- losses.py: hand-computed values ---------------------------------------------------------------


def test_td_target_bootstraps_unless_terminated() -> None:
    target = td_target(
        torch.tensor([1.0, 2.0, 3.0]),
        torch.tensor([0.0, 1.0, 0.0]),
        torch.tensor([10.0, 10.0, 10.0]),
        torch.tensor([0.9, 0.9, 0.729]),  # the last one: a 3-step transition
    )
    assert target.tolist() == pytest.approx([1.0 + 0.9 * 10.0, 2.0, 3.0 + 0.729 * 10.0])


def test_next_state_value_max_and_double() -> None:
    q_tgt = torch.tensor([[1.0, 5.0], [3.0, 2.0]])
    q_online = torch.tensor([[9.0, 0.0], [0.0, 9.0]])
    assert next_state_value(q_tgt).tolist() == [5.0, 3.0]
    # Double DQN: the online net picks (0, 1), the target net values them.
    assert next_state_value(q_tgt, q_online).tolist() == [1.0, 2.0]


def test_td_loss_values() -> None:
    q, target = torch.tensor([0.0, 0.0]), torch.tensor([0.5, 3.0])
    assert float(td_loss(q, target, "mse")) == pytest.approx((0.25 + 9.0) / 2)
    # Huber, delta 1: 0.5 * 0.5^2 = 0.125 and 3 - 0.5 = 2.5.
    assert float(td_loss(q, target, "huber")) == pytest.approx((0.125 + 2.5) / 2)
    weight = torch.tensor([1.0, 0.0])
    assert float(td_loss(q, target, "mse", weight)) == pytest.approx(0.25 / 2)


# --- agent.py --------------------------------------------------------------------------------------


def _linear_agent(batch_size: int = 1) -> Dqn:
    """A Q-net whose output layer has zero weights and biases (1, 2): Q(s, .) = (1, 2) for every s."""
    config = DqnConfig(hidden=(3,), batch_size=batch_size, loss="mse", lr=1e-3)
    agent = Dqn(config, Spaces(obs_shape=(4,), n_actions=2), seed=0)
    with torch.no_grad():
        for net in (agent.parts.net.net, agent.parts.net.target):
            linear = net.net[-1]
            assert isinstance(linear, torch.nn.Linear)
            linear.weight.zero_()
            linear.bias.copy_(torch.tensor([1.0, 2.0]))
    return agent


@pytest.mark.parametrize(
    ("terminated", "truncated", "expected"),
    [
        (False, False, (1.0 - (0.5 + 0.9 * 2.0)) ** 2),  # bootstrap from max Q_tgt(s') = 2
        (False, True, (1.0 - (0.5 + 0.9 * 2.0)) ** 2),  # truncation still bootstraps
        (True, False, (1.0 - 0.5) ** 2),  # termination does not
    ],
)
def test_opt_loss_matches_the_hand_computed_value(terminated: bool, truncated: bool, expected: float) -> None:
    agent = _linear_agent()
    buffer = _buffer(1, act=np.array(0), reward=0.5, is_terminated=terminated, is_truncated=truncated)
    record = agent.opt(buffer)
    assert record is not None
    assert record["train/loss"] == pytest.approx(expected)
    assert record["train/q_mean"] == pytest.approx(1.0)


def test_opt_reads_each_transitions_discount_from_the_batch() -> None:
    # A 3-step transition: reward already summed, bootstrap discounted by gamma^3 = 0.729.
    agent = _linear_agent()
    record = agent.opt(_buffer(1, act=np.array(1), reward=2.71, discount=0.729))
    assert record is not None
    assert record["train/loss"] == pytest.approx((2.0 - (2.71 + 0.729 * 2.0)) ** 2)


def test_dueling_head_is_value_plus_centred_advantage() -> None:
    agent = Dqn(DqnConfig(hidden=(8,), dueling=True), Spaces(obs_shape=(4,), n_actions=3), seed=0)
    x = torch.randn(5, 4)
    net = agent.parts.net.net
    h = net.net(x)
    adv, value = net.advantage(h), net.value(h)
    torch.testing.assert_close(net(x), value + adv - adv.mean(dim=1, keepdim=True))
    # The mean advantage is removed: the mean over actions of Q is V.
    torch.testing.assert_close(net(x).mean(dim=1, keepdim=True), value)


def test_dueling_dqn_learns_on_a_fixed_batch() -> None:
    agent = Dqn(
        DqnConfig(hidden=(32,), dueling=True, batch_size=16, lr=1e-2, target_update_interval=1000),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=0,
    )
    buffer = _buffer(16)
    losses = [agent.opt(buffer) for _ in range(100)]
    values = [r.get_scalar("train/loss") for r in losses if r is not None]
    assert len(values) == 100
    assert np.mean(values[-10:]) < 0.2 * np.mean(values[:10])


def test_a_network_without_a_hidden_layer_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="'hidden' must list at least one hidden layer"):
        DqnConfig(hidden=(), dueling=True)


def test_opt_record_keys_and_finite_values() -> None:
    agent = Dqn(
        DqnConfig(batch_size=32, double_dqn=True, max_grad_norm=1.0),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=0,
    )
    record = agent.opt(_buffer(100))
    assert record is not None
    assert set(record) == {"train/loss", "train/q_mean", "train/grad_norm", "train/epsilon"}
    assert all(np.isfinite(record.get_scalar(k)) for k in record)


def test_opt_skips_until_the_buffer_holds_a_batch() -> None:
    agent = Dqn(DqnConfig(batch_size=32), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    assert agent.opt(_buffer(31)) is None
    assert agent.opt(_buffer(32)) is not None


def test_opt_reduces_the_loss_on_a_fixed_batch() -> None:
    agent = Dqn(
        DqnConfig(batch_size=16, lr=1e-2, target_update_interval=1000),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=0,
    )
    buffer = _buffer(16)
    losses = []
    for _ in range(100):
        record = agent.opt(buffer)
        assert record is not None
        losses.append(record.get_scalar("train/loss"))
    assert np.mean(losses[-10:]) < 0.2 * np.mean(losses[:10])


def test_hard_target_update_copies_every_interval() -> None:
    agent = Dqn(
        DqnConfig(batch_size=8, target_update_interval=3), Spaces(obs_shape=(4,), n_actions=2), seed=0
    )
    buffer, x = _buffer(8), torch.randn(5, 4)
    initial = agent.parts.net.target(x).detach().clone()
    agent.opt(buffer)
    agent.opt(buffer)
    assert torch.equal(agent.parts.net.target(x), initial)  # not yet
    agent.opt(buffer)
    assert torch.equal(agent.parts.net.target(x), agent.parts.net.net(x))


def test_polyak_target_update() -> None:
    agent = Dqn(DqnConfig(batch_size=8, tau=0.25), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    old_tgt = [p.detach().clone() for p in agent.parts.net.target.parameters()]
    agent.opt(_buffer(8))
    for p_tgt, p, old in zip(
        agent.parts.net.target.parameters(), agent.parts.net.net.parameters(), old_tgt, strict=True
    ):
        torch.testing.assert_close(p_tgt, 0.75 * old + 0.25 * p.detach())


def test_prioritized_replay_updates_priorities_from_td_errors() -> None:
    buffer = _buffer(8, per=PerConfig(alpha=1.0, eps=1e-6))
    agent = _linear_agent(batch_size=4)
    assert buffer._tree is not None
    before = buffer._tree.get(np.arange(8)).copy()
    agent.opt(buffer)
    after = buffer._tree.get(np.arange(8))
    changed = np.flatnonzero(after != before)
    assert changed.size > 0
    # Priority = |target - Q(s, a)| + eps with Q = (1, 2) and max Q_tgt(s') = 2.
    s = buffer._storage
    assert s is not None
    q = np.where(s.act[changed] == 0, 1.0, 2.0)
    target = s.reward[changed] + s.discount[changed] * (1.0 - s.is_terminated[changed]) * 2.0
    np.testing.assert_allclose(after[changed], np.abs(target - q) + 1e-6, rtol=1e-5)


def test_eval_mode_is_greedy_and_deterministic_even_with_full_exploration() -> None:
    agent = Dqn(
        DqnConfig(explorer=EpsilonGreedyConfig(eps_start=1.0, eps_final=1.0)),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=0,
    )
    obs = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    agent.eval()
    greedy = [int(agent.parts.net.net(torch.from_numpy(o)).argmax()) for o in obs]
    assert [int(agent.sample(o)) for o in obs] == greedy
    assert [int(agent.sample(o)) for o in obs] == greedy
    assert isinstance(agent.explorer, EpsilonGreedy)
    assert agent.explorer.n_steps == 0  # eval actions do not advance the schedule


def test_epsilon_schedule_is_linear_in_env_steps() -> None:
    explorer = EpsilonGreedy(EpsilonGreedyConfig(eps_start=1.0, eps_final=0.1, final_step=10), seed=0)
    eps = []
    for _ in range(12):
        eps.append(explorer.epsilon())
        explorer.action(2, lambda: torch.zeros(2))
    np.testing.assert_allclose(eps, [*np.linspace(1.0, 0.1, 11), 0.1])


def test_softmax_explorer_samples_by_q_values() -> None:
    agent = Dqn(
        DqnConfig(hidden=(3,), explorer=SoftmaxConfig(temperature=1.0)),
        Spaces(obs_shape=(4,), n_actions=2),
        seed=0,
    )
    with torch.no_grad():
        linear = agent.parts.net.net.net[-1]
        assert isinstance(linear, torch.nn.Linear)
        linear.weight.zero_()
        linear.bias.copy_(torch.tensor([0.0, float(np.log(3.0))]))  # softmax = (0.25, 0.75)
    acts = [int(agent.sample(np.zeros(4, np.float32))) for _ in range(4000)]
    assert np.mean(acts) == pytest.approx(0.75, abs=0.03)


def test_save_then_load_gives_identical_actions_and_state(tmp_path: Path) -> None:
    agent = Dqn(DqnConfig(batch_size=16), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    buffer = _buffer(64)
    for _ in range(20):
        agent.opt(buffer)
    files = agent.save_params(tmp_path)
    assert sorted(p.name for p in files) == ["qnet.pt", "qnet_tgt.pt", "state.pt"]

    loaded = Dqn(DqnConfig(batch_size=16), Spaces(obs_shape=(4,), n_actions=2), seed=123)
    loaded.load_params(tmp_path)
    obs = np.random.default_rng(1).normal(size=(50, 4)).astype(np.float32)
    agent.eval()
    loaded.eval()
    assert [int(agent.sample(o)) for o in obs] == [int(loaded.sample(o)) for o in obs]
    assert loaded.opt_steps == 20
    x = torch.from_numpy(obs)
    assert torch.equal(loaded.parts.net.target(x), agent.parts.net.target(x))
    # The optimiser state came along: the next step is the same for both.
    agent.train()
    loaded.train()
    record, loaded_record = agent.opt(_buffer(16, seed=5)), loaded.opt(_buffer(16, seed=5))
    assert record is not None
    assert loaded_record is not None
    assert record["train/loss"] == loaded_record["train/loss"]
    assert torch.equal(loaded.parts.net.net(x), agent.parts.net.net(x))


@pytest.mark.parametrize("explorer", [EpsilonGreedyConfig(final_step=100), SoftmaxConfig()])
def test_save_then_load_restores_the_explorer_schedule_and_rng(
    tmp_path: Path, explorer: EpsilonGreedyConfig | SoftmaxConfig
) -> None:
    agent = Dqn(DqnConfig(explorer=explorer), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    obs = np.random.default_rng(1).normal(size=(60, 4)).astype(np.float32)
    for o in obs[:30]:
        agent.sample(o)  # train mode: explores and advances the schedule
    agent.save_params(tmp_path)
    loaded = Dqn(DqnConfig(explorer=explorer), Spaces(obs_shape=(4,), n_actions=2), seed=99)
    loaded.load_params(tmp_path)
    assert [int(agent.sample(o)) for o in obs[30:]] == [int(loaded.sample(o)) for o in obs[30:]]
    if isinstance(explorer, EpsilonGreedyConfig):
        assert isinstance(loaded.explorer, EpsilonGreedy)
        assert loaded.explorer.n_steps == 60
        assert loaded.explorer.epsilon() == agent.explorer.epsilon()  # type: ignore[union-attr]


def test_load_of_a_state_without_the_explorer_names_what_is_missing(tmp_path: Path) -> None:
    agent = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    agent.save_params(tmp_path)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    del state["explorer"]
    torch.save(state, tmp_path / "state.pt")
    with pytest.raises(ValueError, match=r"state\.pt does not match this DQN: it lacks \['explorer'\]"):
        agent.load_params(tmp_path)


@pytest.mark.parametrize(
    ("key", "inner", "value", "says"),
    [
        ("opt_steps", None, -5, r"opt_steps must be a whole number in \[0, 2\*\*63 - 1\], got -5"),
        ("opt_steps", None, 10**30, r"opt_steps must be a whole number"),
        ("explorer", "n_steps", -3, r"explorer\.n_steps must be a whole number in \[0, .*\], got -3"),
        ("explorer", "rng", {"state": -1}, r"explorer\.rng is not a PCG64 state"),
        ("explorer", None, [1], r"explorer must be a mapping, got list"),
    ],
    ids=["opt_steps-5", "opt_steps10**30", "n_steps-3", "rng", "explorer"],
)
def test_a_state_value_out_of_range_is_refused_naming_the_file_and_key_before_the_agent_changes(
    tmp_path: Path, key: str, inner: str | None, value: object, says: str
) -> None:
    """A negative ``opt_steps`` was taken; an explorer RNG state of -1 was an ``OverflowError`` traceback
    after the networks and optimiser had been loaded."""
    spaces = Spaces(obs_shape=(4,), n_actions=2)
    Dqn(DqnConfig(), spaces, seed=1).save_params(tmp_path)
    state = torch.load(tmp_path / "state.pt", weights_only=True)
    if inner is None:
        state[key] = value
    else:
        state[key][inner] = {**state[key][inner], **value} if isinstance(value, dict) else value
    torch.save(state, tmp_path / "state.pt")
    agent = Dqn(DqnConfig(), spaces, seed=0)
    before = [p.clone() for p in agent.parts.net.net.parameters()]
    with pytest.raises(CheckpointError, match=rf"^{tmp_path / 'state.pt'}: {says}"):
        agent.load_params(tmp_path)
    assert all(torch.equal(a, b) for a, b in zip(before, agent.parts.net.net.parameters(), strict=True))
    assert agent.opt_steps == 0


def test_load_from_an_incomplete_directory_names_the_missing_file(tmp_path: Path) -> None:
    agent = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    agent.save_params(tmp_path)
    (tmp_path / "qnet_tgt.pt").unlink()
    with pytest.raises(FileNotFoundError, match=r"qnet_tgt\.pt not found"):
        agent.load_params(tmp_path)


def test_load_of_a_mismatched_network_names_the_file(tmp_path: Path) -> None:
    Dqn(DqnConfig(hidden=(8,)), Spaces(obs_shape=(4,), n_actions=2), seed=0).save_params(tmp_path)
    with pytest.raises(ValueError, match=r"qnet\.pt does not match"):
        Dqn(DqnConfig(hidden=(16,)), Spaces(obs_shape=(4,), n_actions=2), seed=0).load_params(tmp_path)


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        ("truncate", r"it is a damaged torch archive \(truncated or corrupt: "),
        ("random", r"it is not a torch file \(neither a zip archive nor a pickle: it starts with b'"),
        ("empty", r"the file is empty \(0 bytes\)"),
        ("pickle", r"it is a pickle of something other than plain tensors \(Unsupported operand \d+\)"),
    ],
)
def test_load_of_a_corrupt_file_names_the_file_and_what_was_found(
    tmp_path: Path, damage: str, says: str
) -> None:
    agent = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    agent.save_params(tmp_path)
    file = tmp_path / "qnet.pt"
    data = file.read_bytes()
    damaged = {
        "truncate": data[: len(data) // 2],
        "random": bytes([0x11, 0xC7]) + np.random.default_rng(0).bytes(2000),
        "empty": b"",
        "pickle": pickle.dumps({"0.weight": [1.0, 2.0]}, protocol=4),
    }[damage]
    file.write_bytes(damaged)
    with pytest.raises(ValueError, match=r"qnet\.pt is not a readable checkpoint file: " + says) as info:
        agent.load_params(tmp_path)
    assert "file an issue" not in str(info.value)
    assert "may hold code" not in str(info.value)


class _Exploit:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def test_a_crafted_network_file_is_refused_without_running_it_or_advising_an_unsafe_load(
    tmp_path: Path,
) -> None:
    agent = Dqn(DqnConfig(batch_size=16), Spaces(obs_shape=(4,), n_actions=2), seed=0)
    agent.save_params(tmp_path)
    marker = tmp_path / "pwned"
    torch.save({"0.weight": _Exploit(marker)}, tmp_path / "qnet.pt")
    with pytest.raises(
        ValueError,
        match=r"qnet\.pt is not a readable checkpoint file: it holds a Python object \(posix\.system\) "
        r"besides tensors, never loaded",
    ) as info:
        agent.load_params(tmp_path)
    assert "weights_only" not in str(info.value)
    assert not marker.exists()
