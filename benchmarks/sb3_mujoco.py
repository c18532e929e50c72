"""Stable-Baselines3's PPO on a MuJoCo env with RL Zoo's settings, evaluated as the MuJoCo campaign
evaluates border_py (deterministic, normalisation statistics frozen, 10 episodes every 50,176 env steps and
at the end): the side-by-side run that decides whether a gap to RL Zoo's table is ours.

    .venv/bin/python -m benchmarks.sb3_mujoco --env Hopper-v5 --seed 0 --out runs/mujoco/sb3

Writes ``<out>/<env>/seed<N>.json``: the evaluations, the final one, the wall-clock and its split into
collecting rollouts (acting and env steps), the rest of ``learn`` (gradient steps) and evaluation. RL Zoo's
settings are written out here, not read from the zoo, so both sides are visible: Hopper's, Walker2d's and
Swimmer's are the same as ``border_py/zoo/ppo.yaml``.
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


def _evaluate(model: Any, train_env: Any, env_id: str, seed: int, episodes: int) -> float:
    """Deterministic mean return with the training env's observation statistics, frozen."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    eval_env = VecNormalize(DummyVecEnv([lambda: gym.make(env_id)]), training=False, norm_reward=False)
    eval_env.obs_rms = train_env.obs_rms.copy()
    eval_env.seed(seed)
    returns: list[float] = []
    total, obs = 0.0, eval_env.reset()
    while len(returns) < episodes:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, done, _ = eval_env.step(action)
        total += float(eval_env.get_original_reward()[0])
        if done[0]:
            returns.append(total)
            total = 0.0
    eval_env.close()
    return float(np.mean(returns))


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


def main(argv: list[str] | None = None) -> int:
    """Trains, evaluates, writes the JSON."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", choices=sorted(SETTINGS), default="Hopper-v5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("runs/mujoco/sb3"))
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    settings = SETTINGS[args.env]
    env = VecNormalize(DummyVecEnv([lambda: gym.make(args.env)]), gamma=settings["gamma"])
    model = PPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0, **settings)
    evaluations: list[tuple[int, float]] = []
    seconds = {"learn": 0.0, "rollouts": 0.0, "eval": 0.0}
    timer = _rollout_timer(seconds)
    start = time.perf_counter()
    while model.num_timesteps < args.steps:
        chunk = min(EVAL_EVERY[args.env], args.steps - model.num_timesteps)
        tick = time.perf_counter()
        model.learn(chunk, reset_num_timesteps=False, callback=timer)
        seconds["learn"] += time.perf_counter() - tick
        tick = time.perf_counter()
        evaluations.append(
            (model.num_timesteps, _evaluate(model, env, args.env, args.seed + 1, args.episodes))
        )
        seconds["eval"] += time.perf_counter() - tick
        print(
            f"{args.env} seed {args.seed}: {evaluations[-1][0]} env steps, eval {evaluations[-1][1]:.1f}",
            flush=True,
        )
    result = {
        "env": args.env,
        "seed": args.seed,
        "settings": {k: v for k, v in settings.items() if k != "policy_kwargs"},
        "evaluations": evaluations,
        "final": evaluations[-1][1],
        "best": max(score for _, score in evaluations),
        "wall_clock_seconds": time.perf_counter() - start,
        "seconds": seconds,
    }
    path = args.out / args.env / f"seed{args.seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    print(f"wrote {path}: final {result['final']:.1f}, best {result['best']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
