"""A zoo entry of border_py and its peer (sb3-contrib's or SBX's run of the same settings) side by side,
seed by seed in one run: same env-step budget, same evaluation (10 deterministic episodes every 2,000 env
steps on the peer's side, 1,000 on Pendulum, the zoo entry's own evaluations on ours), final and best
greedy return, and the wall-clock ratio. The peer runs in its own virtualenv (``benchmarks/peers_venv.sh``
builds ``.venv-peers``), never in the package's.

    benchmarks/peers_venv.sh          # --sbx too for the sac and td3 rows
    taskset -c 0 .venv/bin/python -m benchmarks.peers run --algo qrdqn --env CartPole-v1 --seeds 0 1 2
    .venv/bin/python -m benchmarks.peers table --out runs/peers

``run`` trains our side through ``border-py train`` (``<out>/<algo>/<env>/ours/seed<N>``), then the peer's
(``.venv-peers/bin/python -m benchmarks.peers peer ...``), one after the other on the same machine, one
torch thread each, and writes ``<out>/<algo>/<env>/seed<N>.json``; our final model is also evaluated on the
peer's own evaluation episodes (``matched`` adds that to files written without it). ``table`` prints one
markdown row per algorithm and env from those files.

Every (algorithm, env) RL Zoo has and `benchmarks.peer_settings` does not state is RL Zoo's own entry run by
SB3 (sb3-contrib for QR-DQN and TQC), evaluated every 25,000 env steps, as the zoo's translated entries are
(``--algo ppo --env LunarLander-v3``). ``--max-env-steps N`` cuts both sides to the budget's first N env
steps (ours ``--set trainer.max_env_steps=N``; the peer's schedules keep the full budget's pace).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.peer_settings import PEER_SETTINGS, PEERS
from benchmarks.peer_settings import decoded as _decoded

PEER_PYTHON = Path(".venv-peers/bin/python")
EVAL_EVERY = 2_000
EVAL_EPISODES = 10
PEER_EVAL_SEED = 10_000
"""The peer's evaluation of seed N plays the episodes reset with seeds ``PEER_EVAL_SEED * (N + 1) + i``."""

ONE_THREAD = {
    **os.environ,
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "OMP_NUM_THREADS": "1",
}
"""The peer's environment: one thread for JAX's XLA (SBX) as for torch (``set_num_threads(1)`` on both
sides), so that neither side borrows the other core."""


def _one_core() -> list[str]:
    """``taskset -c N``, N the first core this process may run on: JAX's runtime keeps several threads busy
    whatever its flags say (SBX's process took 130-150% of a core with them), so the peer is held to one
    core as our side is (start ``run`` under ``taskset -c 0`` to pin ours)."""
    return ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if shutil.which("taskset") else []


def _evaluate(model: Any, env_id: str, seed: int, normalizer: Any = None) -> float:
    """The mean return of ``EVAL_EPISODES`` deterministic episodes (reset seeds ``seed + i``); a
    ``VecNormalize`` ``normalizer`` (frozen) scales the observations the model sees, as RL Zoo's
    evaluation does. A recurrent model (sb3-contrib's ``RecurrentPPO``) acts from the LSTM state it
    carries through the episode."""
    import gymnasium as gym
    import numpy as np

    env: Any = gym.make(env_id)
    maskable = type(model).__name__.startswith("Maskable")
    recurrent = type(model).__name__.startswith("Recurrent") or getattr(model, "recurrent", False)
    box, returns = isinstance(env.action_space, gym.spaces.Box), []
    for i in range(EVAL_EPISODES):
        obs, _ = env.reset(seed=seed + i)
        total, done = 0.0, False
        # RecurrentPPO's predict is stateless: it acts from the state it is handed and returns the next
        # one; without them each step would act from a zero state, the memory the task needs gone.
        memory: dict[str, Any] = {"state": None, "episode_start": np.ones(1, bool)} if recurrent else {}
        while not done:
            seen = obs if normalizer is None else normalizer.normalize_obs(obs)
            # sb3-contrib's MaskablePPO masks only what it is handed (its predict takes the mask).
            masks = {"action_masks": env.unwrapped.action_masks()} if maskable else {}
            action, state = model.predict(seen, deterministic=True, **masks, **memory)
            if recurrent:
                memory = {"state": state, "episode_start": np.zeros(1, bool)}
            if box:  # clipped as by SB3's predict and border_py's env adapter (the env may charge a²)
                action = np.clip(action, env.action_space.low, env.action_space.high)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return float(np.mean(returns))


def _peer_env(settings: dict[str, Any], env_id: str, seed: int) -> tuple[Any, Any]:
    """The peer's env (the id, or RL Zoo's vector env of ``n_envs`` with ``VecNormalize`` when
    ``normalize``: observations and rewards, at the run's gamma) and the normaliser (``None``: none);
    pops those keys."""
    n_envs, normalize = settings.pop("n_envs", None), settings.pop("normalize", False)
    kwargs = normalize if isinstance(normalize, dict) else {}  # RL Zoo's "dict(norm_obs=False, ...)"
    if n_envs is None and not normalize:
        return env_id, None
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    env = make_vec_env(env_id, n_envs=n_envs or 1, seed=seed)
    if not normalize:
        return env, None
    normalizer = VecNormalize(env, gamma=settings.get("gamma", 0.99), **kwargs)
    return normalizer, normalizer


def peer(
    algo: str, env_id: str, seed: int, package: str | None = None, env_steps: int | None = None
) -> dict[str, Any]:
    """Trains the peer of ``algo`` with RL Zoo's settings, evaluating every ``eval_every`` env steps (in the
    peers' virtualenv), and once more at the end; ``env_steps``: a cut of the budget (the run's start)."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    if env_id.startswith("border_py/"):  # border_py's own envs register when their modules are imported
        import border_py.envs.goal_envs
        import border_py.envs.masked_envs
        import border_py.envs.no_velocity  # noqa: F401
    settings, steps, full = _budgeted(algo, env_id, env_steps)
    eval_every, due = settings.pop("eval_every", EVAL_EVERY), [0]
    evaluations: list[tuple[int, float]] = []
    eval_seconds = [0.0]

    env, normalizer = _peer_env(settings, env_id, seed)

    def evaluate(model: Any) -> None:
        start = time.perf_counter()
        if normalizer is not None:
            normalizer.training = False  # frozen statistics while evaluating
        value = _evaluate(model, env_id, PEER_EVAL_SEED * (seed + 1), normalizer)
        if normalizer is not None:
            normalizer.training = True
        evaluations.append((model.num_timesteps, value))
        eval_seconds[0] += time.perf_counter() - start

    class Evaluate(BaseCallback):  # type: ignore[misc]
        def _on_step(self) -> bool:
            # Each multiple of eval_every crossed (n_envs steps a call; equal to "% eval_every == 0"
            # where n_envs divides it).
            if self.num_timesteps // eval_every > due[0]:
                due[0] = self.num_timesteps // eval_every
                evaluate(self.model)
            return True

    model, library = _model(algo, env_id, seed, settings, env, package)
    forbidden, start = _forbidden(), time.perf_counter()
    model.learn(steps, callback=Evaluate())
    seconds = time.perf_counter() - start
    forbidden = _forbidden() - forbidden
    if not evaluations or evaluations[-1][0] != model.num_timesteps:
        evaluate(model)  # the final model, where the budget is not a multiple of eval_every
    return {
        "library": library,
        "env_steps": steps,
        "full_env_steps": full,
        "num_timesteps": model.num_timesteps,
        "evaluations": evaluations,
        "seconds": seconds,
        "eval_seconds": eval_seconds[0],
        "forbidden_actions": forbidden,
    }


def _budgeted(algo: str, env_id: str, env_steps: int | None) -> tuple[dict[str, Any], int, int]:
    """The peer's settings decoded for a run of ``env_steps`` (``None``: the whole budget), less the keys
    only this module reads; the env steps; the whole budget."""
    full = PEER_SETTINGS[(algo, env_id)]["n_timesteps"]
    steps = env_steps or full
    if steps > full:
        raise SystemExit(f"--max-env-steps {steps:,}: more than the budget of {full:,}")
    settings = _decoded(PEER_SETTINGS[(algo, env_id)], steps / full)
    del settings["n_timesteps"]
    settings.pop("rlzoo", None)  # the entry's citation
    settings.pop("ours", None)  # our side's overrides (`run`)
    return settings, steps, full


def _model(
    algo: str, env_id: str, seed: int, settings: dict[str, Any], env: Any, package: str | None
) -> tuple[Any, str]:
    """The peer's model and its library's name; builds the action noise (the zoo's ``action_noise``, a
    Gaussian's std, or RL Zoo's ``noise_type`` and ``noise_std``) for the env's action dimension."""
    import importlib

    import gymnasium as gym
    import numpy as np
    from stable_baselines3.common import noise

    kind, std = settings.pop("noise_type", "normal"), settings.pop("noise_std", None)
    std = settings.pop("action_noise", std)
    if std is not None:
        space: Any = gym.make(env_id).action_space  # a Box: its shape is a tuple
        size = int(np.prod(space.shape))
        cls = noise.OrnsteinUhlenbeckActionNoise if kind == "ornstein-uhlenbeck" else noise.NormalActionNoise
        settings["action_noise"] = cls(np.zeros(size), std * np.ones(size))
    default, name = settings.pop("peer", None) or PEERS[algo]
    policy = settings.pop("policy", "MlpPolicy")
    package = package or default
    module = importlib.import_module(package)
    device = {} if package == "sbx" else {"device": "cpu"}
    model = getattr(module, name)(policy, env, seed=seed, **device, **settings)
    return model, f"{package.replace('_', '-')} {module.__version__}"


def _forbidden() -> int:
    """Forbidden actions taken so far in this process by border_py's masked env (its own count)."""
    from border_py.envs.masked_envs import PickDistinctEnv

    return PickDistinctEnv.forbidden_in_process


def ours(algo: str, env_id: str, seed: int, model_dir: Path, overrides: list[str]) -> dict[str, Any]:
    """Trains the zoo entry through ``border-py train --set <overrides>``; reads its evaluations back."""
    from border_py.plot import read_curve
    from border_py.run import cli
    from border_py.run.rundir import RunDir

    argv = ["train", algo, "--env", env_id, "--seed", str(seed), "--model-dir", str(model_dir)]
    argv += ["--set", *overrides] if overrides else []
    forbidden, start = _forbidden(), time.perf_counter()
    status = cli.main([*argv, "--overwrite", "--no-progress"])
    seconds = time.perf_counter() - start
    forbidden = _forbidden() - forbidden
    if status != 0:
        raise RuntimeError(f"border-py {' '.join(argv)} exited with status {status}")
    curve = read_curve(model_dir, "eval/episode_return")
    result = RunDir(model_dir).last_result()
    return {
        "library": "border_py",
        "env_steps": result.env_steps,
        "evaluations": [(int(s), float(v)) for s, v in zip(curve.env_steps, curve.values, strict=True)],
        "final_on_peer_episodes": _final_on_peer_episodes(model_dir, env_id, seed),
        "seconds": seconds,
        "forbidden_actions": forbidden,
    }


class _Greedy:
    """A border_py agent in eval mode behind SB3's ``predict``, for `_evaluate` (a dict observation laid
    flat by the env's ``obs_parts``, as border_py's env adapter lays it)."""

    def __init__(self, agent: Any, obs_parts: Any) -> None:
        from border_py.base import RecurrentPolicy

        self.agent, self.obs_parts = agent, obs_parts
        self.recurrent = isinstance(agent, RecurrentPolicy)
        """Whether `_evaluate` must say where episodes start (the agent keeps its memory itself)."""

    def predict(
        self, obs: Any, deterministic: bool = True, state: Any = None, episode_start: Any = None
    ) -> tuple[Any, None]:
        if self.recurrent and episode_start is not None and bool(episode_start[0]):
            self.agent.start_episodes([True])
        flat = obs if self.obs_parts is None else self.obs_parts.flatten(obs)
        return self.agent.sample(flat), None


def _final_on_peer_episodes(model_dir: Path, env_id: str, seed: int) -> float:
    """The run's last checkpoint, greedy, on the very episodes the peer's evaluations play (`_evaluate`'s
    reset seeds): a mean over 10 Pendulum episodes moves by tens with the start states alone."""
    from contextlib import closing

    from border_py.model_dir import latest_checkpoint
    from border_py.run.experiment import build_eval_env
    from border_py.run.rundir import RunDir
    from border_py.run.saved import load_agent

    experiment = RunDir(model_dir).read_config()
    last = latest_checkpoint(model_dir)
    assert last is not None, f"{model_dir} holds no checkpoint"
    with closing(build_eval_env(experiment)) as eval_env:
        agent = load_agent(experiment, last, eval_env)
        parts = eval_env.spaces.obs_parts
    return _evaluate(_Greedy(agent, parts), env_id, PEER_EVAL_SEED * (seed + 1))


def run(
    algo: str, env_id: str, seeds: list[int], out: Path, package: str | None = None, steps: int | None = None
) -> None:
    """Both sides for each seed, one after the other; ``<out>/<algo>/<env>/seed<N>.json``; ``steps``: both
    cut to that many env steps (ours ``--set trainer.max_env_steps``)."""
    if not PEER_PYTHON.exists():
        raise SystemExit(f"{PEER_PYTHON} is missing: build it with benchmarks/peers_venv.sh")
    root = out / algo / env_id.replace("/", "+")
    for seed in seeds:
        overrides = [
            *PEER_SETTINGS[(algo, env_id)].get("ours", ()),
            *[f"trainer.max_env_steps={steps}"] * bool(steps),
        ]
        mine = ours(algo, env_id, seed, root / "ours" / f"seed{seed}", overrides)
        argv = [str(PEER_PYTHON), "-m", "benchmarks.peers", "peer", "--algo", algo, "--env", env_id]
        argv += (["--peer", package] if package else []) + (["--max-env-steps", str(steps)] if steps else [])
        done = subprocess.run(
            [*_one_core(), *argv, "--seed", str(seed)],
            capture_output=True,
            text=True,
            check=True,
            env=ONE_THREAD,
        )
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
        (root / f"seed{seed}.json").write_text(json.dumps({"ours": mine, "peer": theirs}, indent=1))
        print(f"seed {seed}: {_summary(mine)} | {_summary(theirs)}", flush=True)


def matched(out: Path) -> None:
    """Adds ``final_on_peer_episodes`` to our side of every ``seed<N>.json`` under ``out`` that lacks it
    (files written before it was measured), from the run's model directory beside it."""
    for path in sorted(out.glob("*/*/seed*.json")):
        data = json.loads(path.read_text())
        if "final_on_peer_episodes" not in data["ours"]:
            seed = int(path.stem.removeprefix("seed"))
            env_id = path.parent.name.replace("+", "/")
            model_dir = path.parent / "ours" / f"seed{seed}"
            data["ours"]["final_on_peer_episodes"] = _final_on_peer_episodes(model_dir, env_id, seed)
            path.write_text(json.dumps(data, indent=1))
            print(f"{path}: {data['ours']['final_on_peer_episodes']:.1f}", flush=True)


def _summary(side: dict[str, Any]) -> str:
    values = [v for _, v in side["evaluations"]]
    return f"{side['library']}: final {values[-1]:.1f}, best {max(values):.1f}, {side['seconds']:.0f} s"


def table(out: Path) -> str:
    """One markdown row per algorithm and env under ``out``: medians over seeds, per-seed finals."""
    lines = [
        "| algorithm, env | env steps | seeds | final on the same episodes, ours / peer (median) | "
        "best of each side's evaluations, ours / peer (median) | "
        "final per seed, ours / peer | wall-clock, ours / peer (median) | peer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for env_dir in sorted(p for p in out.glob("*/*") if list(p.glob("seed*.json"))):
        runs = [json.loads(p.read_text()) for p in sorted(env_dir.glob("seed*.json"))]
        final = {
            "ours": [r["ours"].get("final_on_peer_episodes", r["ours"]["evaluations"][-1][1]) for r in runs],
            "peer": [r["peer"]["evaluations"][-1][1] for r in runs],
        }
        best = {k: [max(v for _, v in r[k]["evaluations"]) for r in runs] for k in ("ours", "peer")}
        ratio = statistics.median(r["ours"]["seconds"] / r["peer"]["seconds"] for r in runs)
        per_seed = ", ".join(f"{a:.1f} / {b:.1f}" for a, b in zip(final["ours"], final["peer"], strict=True))
        cells = [
            f"{env_dir.parent.name}, {env_dir.name}",
            _budget(runs[0]["peer"]),
            str(len(runs)),
            f"{statistics.median(final['ours']):.1f} / {statistics.median(final['peer']):.1f}",
            f"{statistics.median(best['ours']):.1f} / {statistics.median(best['peer']):.1f}",
            per_seed,
            f"{ratio:.2f}",
            runs[0]["peer"]["library"],
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _budget(side: dict[str, Any]) -> str:
    """``200,000``, or ``200,000 of 1,000,000`` for a cut."""
    full = side.get("full_env_steps", side["env_steps"])
    return f"{side['env_steps']:,}" + (f" of {full:,}" if full != side["env_steps"] else "")


def main(argv: list[str] | None = None) -> int:
    """``run``, ``peer`` (the peers' virtualenv's half) or ``table``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__)
    parser.add_argument("command", choices=["run", "peer", "matched", "table"])
    parser.add_argument("--algo", choices=sorted({a for a, _ in PEER_SETTINGS}), default="qrdqn")
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("runs/peers"))
    parser.add_argument("--peer", choices=["sb3_contrib", "sbx"], help="the peer's package (default: PEERS')")
    parser.add_argument(
        "--max-env-steps", type=int, help="both sides cut to N env steps (the budget's start)"
    )
    args = parser.parse_args(argv)
    if (args.algo, args.env) not in PEER_SETTINGS and args.command in ("run", "peer"):
        parser.error(f"no peer settings for {args.algo} on {args.env}: {sorted(PEER_SETTINGS)}")
    if args.command == "peer":
        print(json.dumps(peer(args.algo, args.env, args.seed, args.peer, args.max_env_steps)))
    elif args.command == "run":
        run(args.algo, args.env, args.seeds, args.out, args.peer, args.max_env_steps)
    elif args.command == "matched":
        matched(args.out)
    else:
        print(table(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
