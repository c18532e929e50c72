"""PPO end to end: border_py against Stable-Baselines3 with the same RL-Zoo hyperparameters, on CartPole-v1
(8 envs, 1e5 env steps) and Pendulum-v1 (4 envs, gSDE, 1e5 env steps), with the zoo's evaluation schedule on
both sides (SB3's ``EvalCallback`` as often): training wall-clock, then the greedy return over the same 10
evaluation episodes (reset seeds 0..9) for both."""

from __future__ import annotations

import time
from typing import Literal

import attrs

from benchmarks.common import Row
from benchmarks.end_to_end import EvalSchedule, eval_callback, evaluator, greedy_return
from border_py.agents.ppo import Ppo, PpoConfig
from border_py.base import Spaces
from border_py.envs import GymEnvConfig, GymVecEnvConfig
from border_py.recorders import NullRecorder
from border_py.replay_buffer import RolloutBufferConfig
from border_py.step_processor import SimpleStepProcessorConfig
from border_py.trainer import Trainer, TrainerConfig


@attrs.frozen(kw_only=True)
class Setting:
    """One RL-Zoo PPO setting, given to both sides."""

    env: str
    n_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int
    gamma: float
    gae_lambda: float
    lr: float
    linear: bool
    gsde: bool
    steps: int
    schedule: EvalSchedule


CARTPOLE = Setting(
    env="CartPole-v1", n_envs=8, n_steps=32, batch_size=256, n_epochs=20, gamma=0.98, gae_lambda=0.8, lr=1e-3,
    linear=True, gsde=False, steps=100_000,
    # The zoo's: 5 episodes every 8 rollouts of 256 (2,048 env steps, 256 steps of SB3's 8-env vector env).
    schedule=EvalSchedule(opt_steps=8, sb3_calls=256, episodes=5, evaluations="48 / 48"),
)  # fmt: skip
PENDULUM = Setting(
    env="Pendulum-v1", n_envs=4, n_steps=1024, batch_size=64, n_epochs=10, gamma=0.9, gae_lambda=0.95,
    lr=1e-3, linear=False, gsde=True, steps=100_000,
    # The zoo's: 10 episodes after every rollout of 4,096 (1,024 steps of SB3's 4-env vector env).
    schedule=EvalSchedule(opt_steps=1, sb3_calls=1_024, evaluations="24 / 24"),
)  # fmt: skip


def ours(s: Setting, seed: int) -> tuple[float, float]:
    """Wall-clock seconds of training and the greedy return."""
    start = time.perf_counter()
    discrete = s.env == "CartPole-v1"
    schedule: Literal["linear", "constant"] = "linear" if s.linear else "constant"
    config = PpoConfig(
        n_epochs=s.n_epochs,
        batch_size=s.batch_size,
        gae_lambda=s.gae_lambda,
        lr=s.lr,
        lr_schedule=schedule,
        clip_schedule=schedule,
        schedule_env_steps=s.steps,
        gsde=s.gsde,
        sde_sample_freq=4 if s.gsde else None,
    )
    pendulum = Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0])
    agent = Ppo(config, Spaces(obs_shape=(4,), n_actions=2) if discrete else pendulum, seed=seed)
    rollout = RolloutBufferConfig(n_steps=s.n_steps, num_envs=s.n_envs)
    trainer = Trainer(
        TrainerConfig(
            max_env_steps=s.steps,
            opt_interval=rollout.rollout_size,
            record_interval=10,
            eval_interval=s.schedule.opt_steps,
            seed=seed,
        ),
        GymVecEnvConfig(name=s.env, num_envs=s.n_envs, clip_actions=not discrete),
        SimpleStepProcessorConfig(gamma=s.gamma),
        rollout,
    )
    scores = evaluator(GymEnvConfig(name=s.env, clip_actions=not discrete), s.schedule, seed)
    try:
        trainer.train(agent, NullRecorder(), scores)
    finally:
        scores.close()
        scores.env.close()
    seconds = time.perf_counter() - start
    agent.eval()
    low, high = -2.0, 2.0  # Pendulum's bounds: the greedy action is clipped as the env adapter would
    act = agent.sample if discrete else (lambda o: agent.sample(o).clip(low, high))
    return seconds, greedy_return(act, s.env)


def sb3(s: Setting, seed: int) -> tuple[float, float]:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    start = time.perf_counter()
    schedule = (lambda v: lambda progress: progress * v) if s.linear else (lambda v: v)
    model = PPO(
        "MlpPolicy",
        make_vec_env(s.env, n_envs=s.n_envs, seed=seed),
        n_steps=s.n_steps,
        batch_size=s.batch_size,
        n_epochs=s.n_epochs,
        gamma=s.gamma,
        gae_lambda=s.gae_lambda,
        ent_coef=0.0,
        learning_rate=schedule(s.lr),
        clip_range=schedule(0.2),
        use_sde=s.gsde,
        sde_sample_freq=4 if s.gsde else -1,
        seed=seed,
        device="cpu",
    )
    model.learn(total_timesteps=s.steps, callback=eval_callback(s.env, s.schedule))
    seconds = time.perf_counter() - start
    return seconds, greedy_return(lambda o: model.predict(o, deterministic=True)[0], s.env)


def run(threads: int, quick: bool, seed: int = 0) -> list[Row]:
    """One run of each side per setting (a tenth of the env steps with ``quick``)."""
    rows = []
    for setting in (CARTPOLE, PENDULUM):
        s = attrs.evolve(setting, steps=setting.steps // 10) if quick else setting
        ours_s, ours_ret = ours(s, seed)
        sb3_s, sb3_ret = sb3(s, seed)
        gsde = ", gSDE" if s.gsde else ""
        rows.append(
            Row(
                name=f"PPO {s.env} ({s.n_envs} envs{gsde}), {s.steps:.0e} env steps, evaluations "
                f"{s.schedule.evaluations} (ours / SB3): training wall-clock",
                threads=threads,
                ours=ours_s,
                reference=sb3_s,
                reference_name="SB3",
                unit="s",
                target=None if quick else 0.5,
                higher_is_better=False,
                note=f"greedy return over 10 episodes: border_py {ours_ret:.1f}, SB3 {sb3_ret:.1f}",
            )
        )
    return rows
