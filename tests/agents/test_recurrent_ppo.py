"""Recurrent PPO: sequences cut and packed as said, memories per lane and per mode, the rollout replayed as
it was acted, minibatches of whole sequences equal to the step-by-step LSTM, and the saved memories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from border_py import RolloutBuffer, RolloutBufferConfig, Transition
from border_py.agents import RecurrentPpo, RecurrentPpoConfig
from border_py.agents.recurrent_ppo.sequences import cut, episode_starts, pack, padded
from border_py.base import RecurrentPolicy, Spaces

SPACES = Spaces(obs_shape=(3,), n_actions=2)
BOX = Spaces(obs_shape=(3,), action_low=[-1.0], action_high=[1.0])


def _agent(spaces: Spaces = SPACES, **fields: object) -> RecurrentPpo:
    config = RecurrentPpoConfig(hidden=(8,), lstm_hidden=6, batch_size=8, n_epochs=2, **fields)  # type: ignore[arg-type]
    return RecurrentPpo(config, spaces, seed=0)


def test_sequences_are_cut_at_episode_starts_and_at_the_minibatch_size() -> None:
    done = np.array([[False, False], [True, False], [False, False], [False, False], [False, True]])
    starts = episode_starts(done)
    assert starts[:, 0].tolist() == [True, False, True, False, False]
    assert starts[:, 1].tolist() == [True, False, False, False, False]
    # Lane 0: steps 0-1, then 2-4; lane 1: steps 0-4, cut into 0-1, 2-3, 4.
    assert cut(starts, max_length=2).tolist() == [
        [0, 0, 2],
        [0, 2, 2],
        [0, 4, 1],
        [1, 0, 2],
        [1, 2, 2],
        [1, 4, 1],
    ]
    with pytest.raises(ValueError, match="max_length"):
        cut(starts, 0)


def test_a_minibatch_never_splits_a_sequence_and_holds_at_most_batch_size_steps() -> None:
    lengths = np.array([5, 3, 4, 1, 6])
    batches = pack(lengths, [4, 0, 1, 2, 3], batch_size=8)
    assert [b.tolist() for b in batches] == [[4], [0, 1], [2, 3]]
    taken = sorted(i for b in batches for i in b.tolist())
    assert taken == [0, 1, 2, 3, 4]
    assert all(lengths[b].sum() <= 8 for b in batches)


def test_padded_rows_follow_each_sequence_step_by_step() -> None:
    index, valid = padded(np.array([[0, 1, 3], [1, 0, 1]]), num_envs=2)
    # Lane 0 from step 1: rows 2, 4, 6; lane 1's one step: row 1, padded with itself.
    assert index.tolist() == [[2, 1], [4, 1], [6, 1]]
    assert valid.tolist() == [[True, True], [True, False], [True, False]]


def test_the_agent_is_a_recurrent_policy_whose_actions_depend_on_the_past() -> None:
    agent = _agent()
    assert isinstance(agent, RecurrentPolicy)
    agent.eval()
    net = agent.net
    x = torch.ones(1, 3)
    fresh = net.act(x, net.zero_memory(2, 1, agent.device))[1]
    _, _, after = net.act(-3.0 * torch.ones(1, 3), net.zero_memory(2, 1, agent.device))
    remembered = net.act(x, after)[1]
    assert not torch.allclose(fresh, remembered)  # the same observation, another history


def test_start_episodes_clears_the_flagged_lanes_of_the_current_mode_only() -> None:
    agent = _agent()
    agent.start_episodes([True, True])
    agent.sample_batch([np.ones(3, np.float32), -np.ones(3, np.float32)])
    train_memory = agent._memory[True]
    assert train_memory is not None
    assert bool(train_memory.abs().sum() > 0)
    agent.eval()
    agent.start_episodes([True])
    agent.sample(np.ones(3, np.float32))  # an evaluation: its own memory
    agent.train()
    assert agent._memory[True] is train_memory
    agent.start_episodes([False, True])
    cleared = agent._memory[True]
    assert cleared is not None
    assert torch.equal(cleared[:, :, 0], train_memory[:, :, 0])
    assert bool((cleared[:, :, 1] == 0).all())
    with pytest.raises(ValueError, match="3 flags for 2 lanes"):
        agent.start_episodes([False, True, False])


def _acted_rollout(agent: RecurrentPpo, steps: int, lanes: int, done_at: dict[int, int]) -> RolloutBuffer:
    """A rollout acted by ``agent`` on random observations, in a rollout buffer; lane ``l`` ends an
    episode at step ``done_at[l]`` (and the agent is told, as the sampler tells it)."""
    rng = np.random.default_rng(1)
    obs = rng.normal(size=(steps + 1, lanes, 3)).astype(np.float32)
    buffer = RolloutBufferConfig(n_steps=steps, num_envs=lanes).build(seed=0)
    agent.start_episodes([True] * lanes)
    for t in range(steps):
        acts = agent.sample_batch(list(obs[t]))
        ended = [done_at.get(lane) == t for lane in range(lanes)]
        for lane in range(lanes):
            buffer.push(
                Transition(
                    obs=obs[t, lane], act=acts[lane], next_obs=obs[t + 1, lane], reward=float(rng.normal()),
                    is_terminated=ended[lane], is_truncated=False, discount=0.9,
                )
            )  # fmt: skip
        if any(ended):
            agent.start_episodes(ended)
    return buffer


def test_opt_replays_the_rollout_as_it_was_acted() -> None:
    agent = _agent()
    buffer = _acted_rollout(agent, steps=6, lanes=3, done_at={1: 2})
    acting_memory = agent._memory[True]
    data = agent._prepare(buffer.batch(len(buffer)))
    replayed = agent._rollout_memory
    assert acting_memory is not None
    assert replayed is not None
    # The policy's memory where the next rollout starts is the acting lanes' memory, bit for bit.
    assert torch.equal(replayed[:2], acting_memory)
    assert data["starts"].reshape(6, 3)[:, 1].tolist() == [True, False, False, True, False, False]
    # After lane 1's episode ended at step 2, its step 3 starts from a cleared memory.
    assert bool((data["memory"][3 * 3 + 1] == 0).all())


def test_a_minibatch_of_sequences_gives_the_step_by_step_outputs() -> None:
    agent = _agent(BOX)
    buffer = _acted_rollout(agent, steps=7, lanes=2, done_at={0: 3})
    data = agent._prepare(buffer.batch(len(buffer)))
    pieces = cut(data["starts"].reshape(7, 2).numpy(), max_length=4)
    index, valid = padded(pieces, num_envs=2)
    index_t, valid_t = torch.as_tensor(index), torch.as_tensor(valid)
    with torch.no_grad():
        latent, out, value = agent.net.sequences(
            data["obs"][index_t], data["memory"][index_t[0]].permute(1, 2, 0, 3)
        )
    rows = index_t[valid_t]
    log_prob, _ = agent._log_prob_entropy(latent[valid_t], out[valid_t], data["act"][rows])
    torch.testing.assert_close(log_prob, data["old_log_prob"][rows], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(value[valid_t], data["old_value"][rows], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(latent[valid_t], data["latent"][rows], rtol=1e-5, atol=1e-6)


def test_an_update_changes_the_networks() -> None:
    agent = _agent()
    buffer = _acted_rollout(agent, steps=8, lanes=2, done_at={0: 4})
    before = [p.detach().clone() for p in agent.parts.model.params]
    record = agent.opt(buffer)
    assert record is not None
    assert record.get_scalar("train/n_updates") >= 2
    assert any(not torch.equal(a, b) for a, b in zip(before, agent.parts.model.params, strict=True))


def test_memories_are_saved_and_checked(tmp_path: Path) -> None:
    agent = _agent()
    _acted_rollout(agent, steps=3, lanes=2, done_at={})
    agent.save_params(tmp_path)
    loaded = _agent()
    loaded.load_params(tmp_path)
    mine, theirs = loaded._memory[True], agent._memory[True]
    assert mine is not None
    assert theirs is not None
    assert torch.equal(mine, theirs)
    state = agent._state()
    state["memory"] = torch.zeros(2, 1, 2, 5)
    with pytest.raises(ValueError, match=r"memory must be None or a finite tensor \(2, 1, lanes, 6\)"):
        _agent()._check_state(state)
