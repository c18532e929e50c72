"""Stable-Baselines3's PPO on a MuJoCo env with RL Zoo's or CleanRL's settings, evaluated as the MuJoCo
campaign evaluates border_py (deterministic, normalisation statistics frozen, 10 episodes every 50,176 env
steps with RL Zoo's settings, every 51,200 with CleanRL's, and at the end): the side-by-side run that decides
whether a gap to RL Zoo's table is ours.

    .venv/bin/python -m benchmarks.sb3_mujoco --env Hopper-v5 --seed 0 --out runs/mujoco/sb3
    .venv/bin/python -m benchmarks.sb3_mujoco --settings cleanrl --env Hopper-v5 --out runs/mujoco/sb3-cleanrl

Writes ``<out>/<env>/seed<N>.json``: the evaluations (return and forward distance an episode), the final
one, the wall-clock and its split into collecting rollouts (acting and env steps), the rest of ``learn``
(gradient steps) and evaluation. The settings are written out here, not read from the zoo, so both sides
are visible: RL Zoo's Hopper, Walker2d and Swimmer are those of ``border_py/zoo/ppo.yaml`` before issue 37;
CleanRL's are the campaign's ``--set`` list in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

# border_py evaluates between rollouts: every 98 rollouts of 512 (Swimmer: 25 of 2,048).
EVAL_EVERY = {"Hopper-v5": 50_176, "Walker2d-v5": 50_176, "Swimmer-v5": 51_200}
HOPPER: dict[str, Any] = {
    "n_steps": 512,
    "batch_size": 32,
    "gamma": 0.999,
    "learning_rate": 9.80828e-05,
    "ent_coef": 0.00229519,
    "clip_range": 0.2,
    "n_epochs": 5,
    "gae_lambda": 0.99,
    "max_grad_norm": 0.7,
    "vf_coef": 0.835671,
    "policy_kwargs": {
        "log_std_init": -2,
        "ortho_init": False,
        "activation_fn": torch.nn.ReLU,
        "net_arch": {"pi": [256, 256], "vf": [256, 256]},
    },
}
# RL Zoo's Walker2d-v4: SB3's default policy (64x64 tanh, orthogonal initialisation).
WALKER: dict[str, Any] = {
    "n_steps": 512,
    "batch_size": 32,
    "gamma": 0.99,
    "learning_rate": 5.05041e-05,
    "ent_coef": 0.000585045,
    "clip_range": 0.1,
    "n_epochs": 20,
    "gae_lambda": 0.95,
    "max_grad_norm": 1.0,
    "vf_coef": 0.871923,
}
# RL Zoo's Swimmer-v3: SB3's PPO defaults (rollouts of 2,048, 10 epochs of minibatches of 64, lr 3e-4,
# GAE lambda 0.95, clip 0.2, 64x64 tanh) with gamma 0.9999 and normalisation.
SETTINGS = {"Hopper-v5": HOPPER, "Walker2d-v5": WALKER, "Swimmer-v5": {"gamma": 0.9999}}
# CleanRL's ppo_continuous_action.py (vwxyzjn/cleanrl): SB3's default policy (64x64 tanh, orthogonal
# initialisation, log std 0), rollouts of 2,048, 10 epochs of minibatches of 64, lr 3e-4 annealed linearly
# to 0 over the run, clip 0.2, no entropy bonus, observation and reward normalisation clipped at 10. Its value
# loss clip is left out on both sides (border_py's clip_range_vf is SB3's rule, a different loss).
CLEANRL: dict[str, Any] = {
    "n_steps": 2048,
    "batch_size": 64,
    "n_epochs": 10,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.0,
    "vf_coef": 0.5,
    "max_grad_norm": 0.5,
}
CLEANRL_LR = 3e-4
ENVS = ["HalfCheetah-v5", "Hopper-v5", "Swimmer-v5", "Walker2d-v5"]


def _evaluate(model: Any, train_env: Any, env_id: str, seed: int, episodes: int) -> tuple[float, float]:
    """Deterministic mean return with the training env's observation statistics, frozen, and the mean
    distance travelled along x an episode (the MuJoCo body's ``qpos[0]`` after the reset to the last
    step's ``x_position``), so that standing still cannot pass for learning."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    eval_env = VecNormalize(DummyVecEnv([lambda: gym.make(env_id)]), training=False, norm_reward=False)
    eval_env.obs_rms = train_env.obs_rms.copy()
    eval_env.seed(seed)
    returns: list[float] = []
    distances: list[float] = []
    total, obs = 0.0, eval_env.reset()
    start = float(eval_env.venv.envs[0].unwrapped.data.qpos[0])
    while len(returns) < episodes:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, done, infos = eval_env.step(action)
        total += float(eval_env.get_original_reward()[0])
        if done[0]:  # the env has reset itself: qpos is the next episode's start
            returns.append(total)
            distances.append(float(infos[0]["x_position"]) - start)
            total, start = 0.0, float(eval_env.venv.envs[0].unwrapped.data.qpos[0])
    eval_env.close()
    return float(np.mean(returns)), float(np.mean(distances))


def _rollout_timer(seconds: dict[str, float]) -> Any:
    """A callback adding the seconds spent collecting rollouts (acting and env steps) to
    ``seconds["rollouts"]``."""
    from stable_baselines3.common.callbacks import BaseCallback

    class RolloutTimer(BaseCallback):  # type: ignore[misc]  # SB3 is typed as Any here
        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            seconds["rollouts"] += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    return RolloutTimer()


def _model(args: argparse.Namespace) -> tuple[Any, Any, dict[str, Any], int]:
    """SB3's PPO with the chosen settings, its normalised env, the settings and the evaluation interval."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    if args.settings == "cleanrl":
        settings: dict[str, Any] = dict(CLEANRL)
        # Annealed before each update over the run's env steps, as CleanRL does, not over each learn()
        # call (which restarts SB3's progress); SB3 asks once before the model exists.
        progress: dict[str, Any] = {"model": None}
        settings["learning_rate"] = lambda _: (
            CLEANRL_LR
            * (1.0 if progress["model"] is None else 1.0 - progress["model"].num_timesteps / args.steps)
        )
        every = 51_200
    else:
        if args.env not in SETTINGS:
            raise SystemExit(f"--env {args.env}: RL Zoo's settings are written out for {sorted(SETTINGS)}")
        settings, every, progress = SETTINGS[args.env], EVAL_EVERY[args.env], {}
    env = VecNormalize(DummyVecEnv([lambda: gym.make(args.env)]), gamma=settings["gamma"])
    model = PPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0, **settings)
    progress["model"] = model
    return model, env, settings, every


def main(argv: list[str] | None = None) -> int:
    """Trains, evaluates, writes the JSON."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--settings", choices=["rlzoo", "cleanrl"], default="rlzoo")
    parser.add_argument("--env", choices=ENVS, default="Hopper-v5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("runs/mujoco/sb3"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    model, env, settings, every = _model(args)
    evaluations: list[tuple[int, float, float]] = []
    seconds = {"learn": 0.0, "rollouts": 0.0, "eval": 0.0}
    timer = _rollout_timer(seconds)
    start = time.perf_counter()
    while model.num_timesteps < args.steps:
        chunk = min(every, args.steps - model.num_timesteps)
        tick = time.perf_counter()
        model.learn(chunk, reset_num_timesteps=False, callback=timer)
        seconds["learn"] += time.perf_counter() - tick
        tick = time.perf_counter()
        score, distance = _evaluate(model, env, args.env, args.seed + 1, args.episodes)
        evaluations.append((model.num_timesteps, score, distance))
        seconds["eval"] += time.perf_counter() - tick
        print(f"{args.env} seed {args.seed}: {model.num_timesteps} env steps, eval {score:.1f}", flush=True)
    _write(args, settings, evaluations, time.perf_counter() - start, seconds)
    return 0


def _write(
    args: argparse.Namespace,
    settings: dict[str, Any],
    evaluations: list[tuple[int, float, float]],
    wall_clock: float,
    seconds: dict[str, float],
) -> None:
    result = {
        "env": args.env,
        "seed": args.seed,
        "settings": args.settings,
        "values": {k: v for k, v in settings.items() if k != "policy_kwargs" and not callable(v)},
        "evaluations": evaluations,
        "final": evaluations[-1][1],
        "final_distance": evaluations[-1][2],
        "best": max(score for _, score, _ in evaluations),
        "wall_clock_seconds": wall_clock,
        "seconds": seconds,
    }
    path = args.out / args.env / f"seed{args.seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    print(f"wrote {path}: final {result['final']:.1f}, best {result['best']:.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
