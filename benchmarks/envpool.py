"""EnvPool against Gymnasium on Hopper-v5 (issue 38, item 3): does EnvPool's C++ env engine make a zoo PPO
run faster by enough (1.3x end to end) to be worth an optional backend?

EnvPool is not a dependency of border_py, not even of the ``bench`` extra: run this in a separate
virtualenv that has it, with border_py on the path (installing envpool into the project's venv pulls in
its own pins)::

    python3.11 -m venv /tmp/envpool-venv
    /tmp/envpool-venv/bin/pip install torch==2.13.0
    /tmp/envpool-venv/bin/pip install -c constraints.txt envpool==1.2.5 "gymnasium[mujoco]" attrs cattrs \\
        tensorboardX tensorboard tqdm PyYAML
    PYTHONPATH=. /tmp/envpool-venv/bin/python -m benchmarks.envpool parity
    PYTHONPATH=. /tmp/envpool-venv/bin/python -m benchmarks.envpool raw --rounds 5
    PYTHONPATH=. /tmp/envpool-venv/bin/python -m benchmarks.envpool train --steps 100000 --rounds 2

``parity``: with the reset noise off, both envs start in the same state; the same actions must then give the
same observations, rewards and episode ends (EnvPool's Hopper-v5 is Gymnasium's task, not v4's).
``raw``: env steps per second, random actions, one env and a few envs in one vector env (EnvPool on 2
threads, Gymnasium's synchronous vector env), alternating rounds. ``train``: the zoo's PPO Hopper-v5
(``border-py train ppo --env Hopper-v5``) for a shortened budget, once with Gymnasium's env and once with
EnvPool's stepping it (the training and the evaluation env), alternating, same seed; the wall-clock
ratio and where each run's time went (the runs' ``time/*`` records).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

NEEDED = (
    "benchmarks.envpool needs the envpool package, which border_py does not install: run it from a "
    "separate virtualenv that has it (see this module's docstring: pip install envpool==1.2.5)"
)
TASK = "Hopper-v5"
ENVPOOL_ID = "EnvPool/Hopper-v5"
F64 = npt.NDArray[np.float64]


def envpool() -> ModuleType:
    """The envpool module, imported on first use.

    Raises:
        SystemExit: envpool is not installed (the message says how to run this benchmark).
    """
    try:
        return importlib.import_module("envpool")
    except ImportError as exc:
        raise SystemExit(f"{NEEDED}: {exc}") from exc


class EnvPoolEnv(gym.Env[F64, npt.NDArray[Any]]):
    """One EnvPool env as a Gymnasium env, for `border_py.envs.GymEnv` to wrap as it wraps any other.

    EnvPool fixes its seed when the pool is made (``reset(seed=...)`` only warns), so a seeded reset makes a
    new pool with that seed: the first reset and each evaluation episode (``reset_with_index``) are seeded
    as border_py seeds Gymnasium's envs; an unseeded reset continues the pool's RNG. EnvPool resets an
    ended env itself on the step after (Gymnasium's next-step autoreset); border_py resets explicitly at an
    episode end, which starts the next episode at once (``parity`` checks this).

    Args:
        task: EnvPool's task id (``Hopper-v5``).
        seed: the pool's seed until the first seeded reset.
        config: EnvPool config fields (``reset_noise_scale=0.0``).
    """

    def __init__(self, task: str = TASK, seed: int = 0, **config: Any) -> None:
        self._task = task
        self._config = config
        self._pool = self._make(seed)
        self.observation_space = self._pool.observation_space
        self.action_space = self._pool.action_space

    def _make(self, seed: int) -> Any:
        return envpool().make_gymnasium(self._task, num_envs=1, num_threads=1, seed=seed, **self._config)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[F64, dict[str, Any]]:
        """Starts an episode (in a new pool seeded with ``seed`` when given)."""
        super().reset(seed=seed)
        if seed is not None:
            self._pool.close()
            self._pool = self._make(seed)
        obs, _ = self._pool.reset()
        return np.asarray(obs[0], dtype=np.float64), {}

    def step(self, action: npt.NDArray[Any]) -> tuple[F64, float, bool, bool, dict[str, Any]]:
        """One env step (a batch of one for the pool)."""
        obs, reward, terminated, truncated, _ = self._pool.step(np.asarray(action, dtype=np.float64)[None])
        return obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), {}

    def close(self) -> None:
        """Closes the pool."""
        self._pool.close()


def register() -> None:
    """Registers `ENVPOOL_ID` with Gymnasium (EnvPool ends its episodes at 1,000 steps itself)."""
    if ENVPOOL_ID not in gym.registry:
        gym.register(ENVPOOL_ID, entry_point=EnvPoolEnv, kwargs={"task": TASK})


def parity(episodes: int, seed: int) -> dict[str, float]:
    """Steps Gymnasium's and EnvPool's Hopper-v5 from the same start (no reset noise) with the same random
    actions for ``episodes`` episodes; the largest differences and how many episode ends differ."""
    gym_env = gym.make(TASK, reset_noise_scale=0.0)
    pool_env = EnvPoolEnv(TASK, seed, reset_noise_scale=0.0)
    rng = np.random.default_rng(seed)
    worst = {"obs": 0.0, "reward": 0.0, "ends_differ": 0.0, "steps": 0.0}
    for _ in range(episodes):
        a, _ = gym_env.reset(seed=seed)
        b, _ = pool_env.reset()  # an explicit reset after an ended episode: must start the next one now
        worst["obs"] = max(worst["obs"], float(np.abs(a - b).max()))
        done = False
        while not done:
            act = rng.uniform(-1.0, 1.0, size=3)
            a, ra, ta, ua, _ = gym_env.step(act)
            b, rb, tb, ub, _ = pool_env.step(act)
            worst["obs"] = max(worst["obs"], float(np.abs(a - b).max()))
            worst["reward"] = max(worst["reward"], abs(float(ra) - rb))
            worst["ends_differ"] += float((ta, ua) != (tb, ub))
            worst["steps"] += 1
            done = bool(ta or ua or tb or ub)
    return worst


def _rate(step: Callable[[], int], seconds: float) -> float:
    """Env steps per second of calling ``step`` (which says how many env steps it took) for ``seconds``."""
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            steps += step()
    return steps / elapsed


def _single(env: gym.Env[Any, Any], seed: int) -> Callable[[], int]:
    env.reset(seed=seed)
    acts = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(4096, 3))
    i = 0

    def step() -> int:
        nonlocal i
        i += 1
        _, _, terminated, truncated, _ = env.step(acts[i % 4096])
        if terminated or truncated:
            env.reset()
        return 1

    return step


def _vector(env: Any, n: int, seed: int) -> Callable[[], int]:
    env.reset()
    acts = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(256, n, 3))
    i = 0

    def step() -> int:
        nonlocal i
        i += 1
        env.step(acts[i % 256])  # both reset an ended sub-env themselves
        return n

    return step


def _physics(seed: int) -> Callable[[], int]:
    """MuJoCo's own stepping of Gymnasium's Hopper-v5 model, 4 substeps (the env's frame skip) a call, no
    Python env around it: the floor of an env step for any backend on one core."""
    mujoco = importlib.import_module("mujoco")
    env: Any = gym.make(TASK).unwrapped
    env.reset(seed=seed)
    model, data = env.model, env.data
    i = 0

    def step() -> int:
        nonlocal i
        i += 1
        mujoco.mj_step(model, data, nstep=env.frame_skip)
        if i % 200 == 0:  # about a random policy's episode: keep the model near its usual states
            env.reset()
        return 1

    return step


def raw(rounds: int, seconds: float, n_envs: int, seed: int) -> dict[str, list[float]]:
    """Env steps per second of each way of stepping Hopper-v5, ``rounds`` alternating rounds each."""
    ep = envpool()
    steppers: dict[str, Callable[[], int]] = {
        "mujoco.mj_step x4, 1 env (physics only)": _physics(seed),
        "gymnasium, 1 env (gym.make)": _single(gym.make(TASK), seed),
        "envpool, 1 env (through EnvPoolEnv)": _single(EnvPoolEnv(TASK, seed), seed),
        "envpool, 1 env (the pool itself)": _vector(ep.make_gymnasium(TASK, num_envs=1, seed=seed), 1, seed),
        f"gymnasium, {n_envs} envs (sync vector env)": _vector(
            gym.make_vec(TASK, num_envs=n_envs, vectorization_mode="sync"), n_envs, seed
        ),
        f"envpool, {n_envs} envs (2 threads)": _vector(
            ep.make_gymnasium(TASK, num_envs=n_envs, num_threads=2, seed=seed), n_envs, seed
        ),
    }
    rates: dict[str, list[float]] = {name: [] for name in steppers}
    for _ in range(rounds):
        for name, step in steppers.items():
            rates[name].append(_rate(step, seconds))
    return rates


TIME_KEYS = ("time/act_seconds", "time/env_seconds", "time/opt_seconds", "time/eval_seconds")


def train_once(backend: str, steps: int, seed: int, root: Path) -> dict[str, float]:
    """The zoo's PPO Hopper-v5 for ``steps`` env steps on ``backend`` (``gymnasium`` or ``envpool``): the
    wall-clock seconds of ``border_py.run.commands.train``, where they went, and the last evaluation."""
    from border_py.plot import read_curve
    from border_py.run.commands import TrainOptions, train
    from border_py.run.zoo import experiment

    model_dir = root / backend
    exp: Any = experiment("ppo", TASK, str(model_dir), trainer={"max_env_steps": steps, "seed": seed})
    if backend == "envpool":
        register()
        exp = attrs.evolve(exp, env=attrs.evolve(exp.env, name=ENVPOOL_ID))
    start = time.perf_counter()
    result = train(exp, TrainOptions(progress=False, quiet=True, overwrite=True))
    out = {"seconds": time.perf_counter() - start, "score": float(result.last_score or float("nan"))}
    for key in TIME_KEYS:
        out[key.removeprefix("time/")] = float(read_curve(model_dir, key).values.sum())
    return out


def train_rounds(steps: int, rounds: int, seed: int) -> list[dict[str, dict[str, float]]]:
    """``rounds`` alternating pairs of `train_once` (the order flips each round), printed as they end."""
    envpool()  # refuse before the first (long) Gymnasium run, not after it
    runs: list[dict[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="envpool-bench-") as tmp:
        for r in range(rounds):
            order = ("gymnasium", "envpool") if r % 2 == 0 else ("envpool", "gymnasium")
            pair = {b: train_once(b, steps, seed, Path(tmp) / f"round{r}") for b in order}
            print(f"round {r}: " + "; ".join(f"{b} {_fmt(v)}" for b, v in pair.items()), flush=True)
            runs.append(pair)
    return runs


def _fmt(values: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:,.1f}" for k, v in values.items())


def _report_train(runs: list[dict[str, dict[str, float]]]) -> None:
    ratios = [r["gymnasium"]["seconds"] / r["envpool"]["seconds"] for r in runs]
    print(f"end to end, gymnasium / envpool seconds per round: {[round(x, 3) for x in ratios]}")
    print(f"median speed-up with envpool: {statistics.median(ratios):.3f} (the bar: 1.3)")
    for backend in ("gymnasium", "envpool"):
        med = {k: statistics.median(r[backend][k] for r in runs) for k in runs[0][backend]}
        print(f"{backend} (medians): {_fmt(med)}")


def main(argv: list[str] | None = None) -> int:
    """Runs one of ``parity``, ``raw`` and ``train``, printing what it measured."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=("parity", "raw", "train"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (raw, train)")
    parser.add_argument("--episodes", type=int, default=20, help="parity: episodes compared")
    parser.add_argument("--seconds", type=float, default=2.0, help="raw: seconds per stepper per round")
    parser.add_argument("--envs", type=int, default=4, help="raw: sub-envs of the vector envs")
    parser.add_argument("--steps", type=int, default=100_000, help="train: env steps per run")
    args = parser.parse_args(argv)
    envpool()
    if args.what == "parity":
        print(f"{TASK}, Gymnasium against EnvPool, no reset noise: {_fmt(parity(args.episodes, args.seed))}")
    elif args.what == "raw":
        for name, rates in raw(args.rounds, args.seconds, args.envs, args.seed).items():
            rounded = [round(x) for x in rates]
            print(f"{name}: median {statistics.median(rates):,.0f} env steps/s, rounds {rounded}")
    else:
        _report_train(train_rounds(args.steps, args.rounds, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
