"""The peers' side of `benchmarks.peers` that runs without the peers' virtualenv: settings as data turned
into SB3's objects, the plain-PPO rows derived from the recurrent ones, and the evaluation of a recurrent
model carrying its state through each episode."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import torch

import border_py.envs.no_velocity  # noqa: F401  (registers the ids _evaluate makes)
from benchmarks.peer_settings import PEER_SETTINGS
from benchmarks.peer_settings import decoded as _decoded
from benchmarks.peers import EVAL_EPISODES, _evaluate

CARTPOLE = "border_py/CartPoleNoVel-v1"


def test_schedules_and_activation_are_decoded_from_data() -> None:
    settings = _decoded(PEER_SETTINGS[("recurrent_ppo", CARTPOLE)])
    assert settings["learning_rate"](0.5) == 0.0005
    assert settings["clip_range"](1.0) == 0.2
    assert settings["clip_range"](0.25) == 0.05
    assert settings["policy_kwargs"]["activation_fn"] is torch.nn.ReLU
    assert PEER_SETTINGS[("recurrent_ppo", CARTPOLE)]["policy_kwargs"]["activation_fn"] == "ReLU"


def test_the_plain_ppo_rows_are_the_recurrent_ones_without_the_lstm() -> None:
    for env_id in (CARTPOLE, "border_py/PendulumNoVel-v1"):
        recurrent, plain = PEER_SETTINGS[("recurrent_ppo", env_id)], PEER_SETTINGS[("ppo", env_id)]
        assert plain["peer"] == ("stable_baselines3", "PPO")
        assert (recurrent["policy"], plain["policy"]) == ("MlpLstmPolicy", "MlpPolicy")
        assert not any("lstm" in key for key in plain["policy_kwargs"])
        assert {**plain["policy_kwargs"], "lstm_hidden_size": 64, "enable_critic_lstm": True} == recurrent[
            "policy_kwargs"
        ]
        same = {k: v for k, v in plain.items() if k not in ("peer", "policy", "policy_kwargs")}
        assert same == {k: v for k, v in recurrent.items() if k not in ("policy", "policy_kwargs")}


class RecurrentCounter:
    """A recurrent model as `_evaluate` drives sb3-contrib's ``RecurrentPPO``: its state counts the steps
    since the episode started, and it pushes right until its third step, then left."""

    def __init__(self) -> None:
        self.handed: list[tuple[Any, bool]] = []

    def predict(
        self,
        obs: npt.NDArray[np.float32],
        state: Any = None,
        episode_start: npt.NDArray[np.bool_] | None = None,
        deterministic: bool = False,
    ) -> tuple[npt.NDArray[np.int64], Any]:
        assert episode_start is not None
        assert deterministic
        self.handed.append((state, bool(episode_start[0])))
        steps = 0 if episode_start[0] else state
        return np.array(int(steps < 3), np.int64), steps + 1


def test_a_recurrent_model_carries_its_state_through_each_episode() -> None:
    """Each episode starts from no state, flagged; each later step is handed the state the step before
    returned."""
    model = RecurrentCounter()
    _evaluate(model, CARTPOLE, seed=0)
    starts = [i for i, (_, start) in enumerate(model.handed) if start]
    assert len(starts) == EVAL_EPISODES
    for begin, end in zip(starts, [*starts[1:], len(model.handed)], strict=True):
        episode = model.handed[begin:end]
        assert episode == [(None, True)] + [(n, False) for n in range(1, len(episode))]


def test_our_side_of_a_cut_pair_takes_the_peers_widths_and_budget() -> None:
    """A pair whose settings depart from the zoo entry (``ours``) gives our side overrides that build, and
    that set the critics, the warm-up and the budget the peer is given; the peer never sees the key."""
    from benchmarks.peers import _budgeted
    from border_py.agents.crossq.config import CrossQConfig
    from border_py.run.codec import apply_overrides, experiment_from_dict
    from border_py.run.zoo import entry

    cut = {pair: s for pair, s in PEER_SETTINGS.items() if "ours" in s}
    assert ("crossq", "HalfCheetah-v5") in cut
    for (algo, env_id), settings in cut.items():
        found = entry(algo, env_id)
        built = experiment_from_dict(apply_overrides(found.data, settings["ours"]), found.source)
        assert built.trainer.max_env_steps == settings["n_timesteps"]
        assert built.trainer.warmup_period == settings["learning_starts"]
        widths, agent = settings["policy_kwargs"]["net_arch"], built.agent
        assert isinstance(agent, CrossQConfig)
        assert (list(agent.critic_hidden), list(agent.actor_hidden)) == (widths["qf"], widths["pi"])
        assert "ours" not in _budgeted(algo, env_id, None)[0]
