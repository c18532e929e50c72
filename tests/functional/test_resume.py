"""Exact resume: 2N opt steps in one run end where N opt steps + resume + N opt steps do.

Each agent trains on a real Gymnasium env with its own randomness (epsilon-greedy and prioritized replay
for DQN, tau sampling for IQN, policy noise for SAC, gSDE's noise weights) and the checkpoint falls in the
middle of an episode, so the env, the n-step processor's pending rewards, the buffer and every RNG must all
come back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    PerConfig,
    SimpleReplayBufferConfig,
    Trainer,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import (
    CrossQ,
    CrossQConfig,
    Dqn,
    DqnConfig,
    EpsilonGreedyConfig,
    Iqn,
    IqnConfig,
    QrDqn,
    QrDqnConfig,
    Sac,
    SacConfig,
    Td3,
    Td3Config,
    Tqc,
    TqcConfig,
)
from border_py.base import Spaces
from border_py.base.agent import Agent
from border_py.envs import Act, GymEnv, Obs
from border_py.model_dir import latest_checkpoint
from border_py.recorders import BufferedRecorder
from border_py.replay_buffer.transition import TransitionBatch
from border_py.seeding import seed_everything
from border_py.trainer.state import read_trainer_state

MakeAgent = Callable[[GymEnv], Agent[Obs, Act, TransitionBatch]]

_EPS = EpsilonGreedyConfig(eps_start=1.0, eps_final=0.05, final_step=300)
CASES: dict[str, tuple[str, MakeAgent, bool]] = {
    "dqn-per-3step": (
        "CartPole-v1",
        lambda env: Dqn(
            DqnConfig(hidden=(32, 32), batch_size=32, target_update_interval=20, explorer=_EPS),
            Spaces(obs_shape=(env.obs_dim,), n_actions=env.n_actions),
            seed=3,
        ),
        True,
    ),
    "iqn": (
        "CartPole-v1",
        lambda env: Iqn(
            IqnConfig(hidden=(32, 32), batch_size=16, target_update_interval=20, explorer=_EPS),
            Spaces(obs_shape=(env.obs_dim,), n_actions=env.n_actions),
            seed=3,
        ),
        False,
    ),
    "qrdqn-per": (
        "CartPole-v1",
        lambda env: QrDqn(
            QrDqnConfig(
                n_quantiles=8, hidden=(32, 32), batch_size=16, target_update_interval=20, explorer=_EPS
            ),
            Spaces(obs_shape=(env.obs_dim,), n_actions=env.n_actions),
            seed=3,
        ),
        True,
    ),
    "sac": (
        "Pendulum-v1",
        lambda env: Sac(
            SacConfig(actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=32), env.spaces, seed=3
        ),
        False,
    ),
    "sac-linear-lr": (  # the three rates fall over 200 opt steps: across the resume, then at 0
        "Pendulum-v1",
        lambda env: Sac(
            SacConfig(
                actor_hidden=(32, 32),
                critic_hidden=(32, 32),
                batch_size=32,
                lr_schedule="linear",
                schedule_opt_steps=200,
            ),
            env.spaces,
            seed=3,
        ),
        False,
    ),
    "sac-gsde": (  # gSDE's weights drawn every 3rd act and after each opt call (every 4 env steps here)
        "Pendulum-v1",
        lambda env: Sac(
            SacConfig(
                actor_hidden=(32, 32),
                critic_hidden=(32, 32),
                batch_size=32,
                gsde=True,
                sde_sample_freq=3,
                use_expln=True,
            ),
            env.spaces,
            seed=3,
        ),
        False,
    ),
    "tqc": (
        "Pendulum-v1",
        lambda env: Tqc(
            TqcConfig(
                actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=32, n_critics=2, n_quantiles=5
            ),
            env.spaces,
            seed=3,
        ),
        False,
    ),
    "ddpg": (  # Ornstein-Uhlenbeck noise, started again at the episode's end (env step 200), after the resume
        "Pendulum-v1",
        lambda env: Td3(
            Td3Config.ddpg(actor_hidden=(32, 32), critic_hidden=(32, 32), batch_size=32), env.spaces, seed=3
        ),
        False,
    ),
    "crossq": (  # renormalising from the 50th call, the policy on every 7th update: across the resume
        "Pendulum-v1",
        lambda env: CrossQ(
            CrossQConfig(
                actor_hidden=(32, 32),
                critic_hidden=(32, 32),
                batch_size=32,
                policy_delay=7,
                renorm_warmup_steps=50,
            ),
            env.spaces,
            seed=3,
        ),
        False,
    ),
}
OPT_INTERVAL = {"sac-gsde": 4}
"""In env steps, where a case's is not 1: gSDE's acting weights then outlive an env step."""


def _train(
    case: str, max_opts: int, model_dir: Path, resume_from: Path | None = None, checkpoint_buffer: bool = True
) -> tuple[Agent[Obs, Act, TransitionBatch], TrainResult, BufferedRecorder]:
    env_name, make_agent, per = CASES[case]
    config = TrainerConfig(
        max_opts=max_opts,
        warmup_period=70,
        opt_interval=OPT_INTERVAL.get(case, 1),
        eval_interval=40,
        record_interval=30,
        save_interval=120,
        model_dir=str(model_dir),
        seed=5,
        checkpoint_buffer=checkpoint_buffer,
    )
    buffer = SimpleReplayBufferConfig(capacity=500, per=PerConfig(n_opts_final=200) if per else None)
    trainer = Trainer(config, GymEnvConfig(name=env_name), NStepStepProcessorConfig(n_steps=3), buffer)
    eval_env = GymEnvConfig(name=env_name).build(seed=6)
    agent = make_agent(eval_env)
    recorder = BufferedRecorder()
    evaluator = DefaultEvaluatorConfig(n_episodes=2).build(eval_env)
    result = trainer.train(agent, recorder, evaluator, resume_from=resume_from)
    eval_env.close()
    return agent, result, recorder


def _params(agent: object) -> dict[str, torch.Tensor]:
    modules: dict[str, torch.nn.Module] = agent._modules()  # type: ignore[attr-defined]
    return {f"{name}/{k}": v for name, m in modules.items() for k, v in m.state_dict().items()}


def _eval_curve(recorder: BufferedRecorder) -> list[tuple[int, float]]:
    return [(step, r.get_scalar("eval_reward")) for step, r in recorder.records if "eval_reward" in r]


@pytest.mark.functional
@pytest.mark.parametrize("case", sorted(CASES))
def test_n_plus_resume_plus_n_equals_2n(case: str, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    seed_everything(0)
    whole, whole_result, whole_recorder = _train(case, 240, tmp_path / "whole")

    seed_everything(0)
    _, first_result, first_recorder = _train(case, 120, tmp_path / "split")
    assert first_result.opt_steps == 120
    checkpoint = latest_checkpoint(tmp_path / "split")
    assert checkpoint == tmp_path / "split" / "120"
    sampler_state = read_trainer_state(checkpoint, "online")["source"]["sampler"]
    assert len(sampler_state["actions"]) > 0  # the checkpoint is mid-episode: the replay path is exercised

    seed_everything(123)  # a fresh process would not share the first run's global RNG states
    resumed, resumed_result, resumed_recorder = _train(case, 240, tmp_path / "split", resume_from=checkpoint)

    whole_params, resumed_params = _params(whole), _params(resumed)
    assert whole_params.keys() == resumed_params.keys()
    different = [k for k in whole_params if not torch.equal(whole_params[k], resumed_params[k])]
    assert different == []
    assert resumed_result == whole_result  # counters, best score and every evaluation
    assert len(whole_result.evaluations) == 6
    assert _eval_curve(first_recorder) + _eval_curve(resumed_recorder) == _eval_curve(whole_recorder)


@pytest.mark.functional
def test_resume_without_the_buffer_differs_so_the_exact_test_can_fail(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    whole, _, _ = _train("dqn-per-3step", 240, tmp_path / "whole")
    _train("dqn-per-3step", 120, tmp_path / "split", checkpoint_buffer=False)
    assert not (tmp_path / "split" / "120" / "replay_buffer.npz").exists()

    resumed, result, _ = _train(
        "dqn-per-3step", 240, tmp_path / "split", resume_from=tmp_path / "split" / "120"
    )
    assert result.opt_steps == 240
    whole_params, resumed_params = _params(whole), _params(resumed)
    assert any(not torch.equal(whole_params[k], resumed_params[k]) for k in whole_params)
