"""The one job list of the campaigns: every zoo entry whose full run the documentation reports.

A job is a zoo entry (algorithm, env id, variant) trained in full through ``border-py train``, exactly as a
user gets it, over seeds, with what its result is compared against: the score that counts as solved
(``reference``: `campaigns.reference`) or a published table's number (``mujoco``: `campaigns.mujoco`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from border_py.datasets import BEHAVIOUR_RETURN_KEY
from border_py.run import zoo


@attrs.frozen
class Published:
    """A published result: RL Zoo's benchmark table (rl-baselines3-zoo ``benchmark.md``; 1M env steps on
    MuJoCo, 10M agent steps on Atari)."""

    env_id: str
    """The env the number is for (RL Zoo's table has v3 and v4 rows, no v5)."""
    mean: float
    std: float | None = None


@attrs.frozen
class Job:
    """One zoo entry's full run, over ``seeds``."""

    name: str
    campaign: str
    """``reference`` (docs/results.md), ``mujoco`` (docs/mujoco.md) or ``atari`` (docs/results.md's Atari
    section)."""
    algo: str
    env_id: str
    variant: str | None = None
    seeds: tuple[int, ...] = (0, 1, 2)
    threshold: float | Callable[[], float] | None = None
    """The score that counts as solved (offline: the behaviour policy's mean return, read from the
    dataset's metadata when it is asked for)."""
    published: Published | None = None
    changes: tuple[str, ...] = ()
    """``--set`` overrides the campaign makes to the zoo entry, each for a reason its job's comment gives
    (none changes the algorithm or its settings)."""

    def score(self) -> float:
        """The threshold's value.

        Raises:
            ValueError: the job has none (a MuJoCo job is compared with its published number).
        """
        if self.threshold is None:
            raise ValueError(f"{self.name} has no threshold")
        return self.threshold() if callable(self.threshold) else self.threshold


def _behaviour(algo: str, dataset_id: str) -> Callable[[], float]:
    """The behaviour policy's mean return of the zoo entry's dataset (``make datasets`` builds it)."""

    def read() -> float:
        dataset: Any = getattr(zoo.experiment(algo, dataset_id), "dataset", None)
        return float(dataset.metadata()[BEHAVIOUR_RETURN_KEY])

    return read


def _offline(name: str, algo: str, dataset_id: str) -> Job:
    return Job(name, "reference", algo, dataset_id, threshold=_behaviour(algo, dataset_id))


def _mujoco(
    algo: str,
    env_id: str,
    published: Published,
    seeds: tuple[int, ...] = (0, 1, 2),
    changes: tuple[str, ...] = (),
) -> Job:
    return Job(f"{algo}_{env_id}", "mujoco", algo, env_id, seeds=seeds, published=published, changes=changes)


_TQC_MUJOCO = ("trainer.save_interval=10000", "trainer.keep_checkpoints=3")

JOBS: tuple[Job, ...] = (
    Job("dqn_cartpole", "reference", "dqn", "CartPole-v1", threshold=475.0),
    Job("dqn_cartpole_nstep3", "reference", "dqn", "CartPole-v1", variant="nstep3", threshold=475.0),
    Job("qrdqn_cartpole", "reference", "qrdqn", "CartPole-v1", threshold=475.0),
    Job("qrdqn_acrobot", "reference", "qrdqn", "Acrobot-v1", threshold=-100.0),
    Job("iqn_cartpole", "reference", "iqn", "CartPole-v1", threshold=475.0),
    Job("sac_pendulum", "reference", "sac", "Pendulum-v1", threshold=-200.0),
    Job("td3_pendulum", "reference", "td3", "Pendulum-v1", threshold=-200.0),
    Job("tqc_pendulum", "reference", "tqc", "Pendulum-v1", threshold=-200.0),
    Job("crossq_pendulum", "reference", "crossq", "Pendulum-v1", threshold=-200.0),
    Job("ppo_cartpole", "reference", "ppo", "CartPole-v1", threshold=475.0),
    Job("ppo_pendulum", "reference", "ppo", "Pendulum-v1", threshold=-200.0),
    Job("a2c_cartpole", "reference", "a2c", "CartPole-v1", threshold=475.0),
    Job("a2c_pendulum", "reference", "a2c", "Pendulum-v1", threshold=-200.0),
    _offline("bc_pendulum", "bc", "pendulum-medium-v0"),
    _offline("iql_pendulum", "iql", "pendulum-medium-v0"),
    _offline("awac_pendulum", "awac", "pendulum-medium-v0"),
    _offline("td3bc_pendulum", "td3bc", "pendulum-medium-v0"),
    _offline("cql_pendulum", "cql", "pendulum-medium-v0"),
    _offline("bc_cartpole", "bc", "cartpole-medium-v0"),
    # RL Zoo's PPO rows (v3 envs, mean and std over its runs).
    _mujoco("ppo", "Hopper-v5", Published("Hopper-v3", 2410.4, 10.0)),
    _mujoco("ppo", "Walker2d-v5", Published("Walker2d-v3", 3478.8, 821.7)),
    _mujoco("ppo", "HalfCheetah-v5", Published("HalfCheetah-v3", 5819.1, 663.5)),
    _mujoco("ppo", "Swimmer-v5", Published("Swimmer-v3", 281.6, 9.7)),
    # RL Zoo's SAC and TD3 rows (v3 envs, single runs): seed 0 first, more where time allows.
    _mujoco("sac", "HalfCheetah-v5", Published("HalfCheetah-v3", 9535.0), seeds=(0,)),
    _mujoco("sac", "Hopper-v5", Published("Hopper-v3", 2326.0), seeds=(0,)),
    _mujoco("td3", "HalfCheetah-v5", Published("HalfCheetah-v3", 9656.0), seeds=(0,)),
    _mujoco("td3", "Hopper-v5", Published("Hopper-v3", 3606.0), seeds=(0,)),
    # RL Zoo's TQC rows (v3, mean and std over its evaluation episodes): issue 50 asks for one task.
    # TQC's 1M steps take 4+ h of a core here, across sessions that end without warning: a checkpoint
    # (with its buffer) every 10k opt steps rather than 50k, the newest three kept.
    _mujoco("tqc", "Hopper-v5", Published("Hopper-v3", 3754.2, 8.3), seeds=(0,), changes=_TQC_MUJOCO),
    _mujoco(
        "tqc", "HalfCheetah-v5", Published("HalfCheetah-v3", 12089.9, 127.4), seeds=(0,), changes=_TQC_MUJOCO
    ),
)


_OFF_POLICY_ATARI = ("trainer.save_interval=10000", "trainer.checkpoint_buffer=true")
# PPO's forward passes in bf16 (this CPU has AVX-512-BF16) on both cores: about 2 h for 10M frames, inside
# one working session, where fp32 on one thread took 3.5-3.9 h (benchmarks/RESULTS.md); the losses,
# gradients and Adam stay float32.
_PPO_ATARI = ("agent.update_dtype=bfloat16", "torch_threads=2")

ATARI = (
    # Pong first: the target. RL Zoo's rows are at 10M agent steps (40M frames) with a stochastic
    # evaluation; the runs here stop at 10M frames (PPO) and 2M agent steps (DQN, IQN: 8M frames).
    Job("ppo_pong", "atari", "ppo", "ALE/Pong-v5", seeds=(0,), threshold=18.0,
        published=Published("PongNoFrameskip-v4", 20.989, 0.105), changes=_PPO_ATARI),
    # The off-policy runs take ~25 h of a loaded core, in 3-hour sessions that end without warning: a
    # checkpoint every 10k opt steps (40k env steps, ~30 min) with its replay buffer, so a stop costs half
    # an hour rather than the session, and a resume replays from the same buffer instead of refilling it.
    Job("dqn_pong", "atari", "dqn", "ALE/Pong-v5", seeds=(0,), threshold=0.0,
        published=Published("PongNoFrameskip-v4", 20.602, 0.613), changes=_OFF_POLICY_ATARI),
    Job("ppo_breakout", "atari", "ppo", "ALE/Breakout-v5", seeds=(0,),
        published=Published("BreakoutNoFrameskip-v4", 398.033, 33.328), changes=_PPO_ATARI),
    # IQN's update (64 x 64 quantile pairs over a batch of 32) costs about three of DQN's: bf16 halves it
    # (benchmarks/value_bf16.py). DQN stays float32, the setting of `make test-atari`'s target.
    Job("iqn_pong", "atari", "iqn", "ALE/Pong-v5", seeds=(0,), threshold=0.0,
        changes=(*_OFF_POLICY_ATARI, "agent.update_dtype=bfloat16")),
)  # fmt: skip
"""The Atari runs (issue 55), each beside RL Zoo's benchmark row where it has one."""


def jobs(campaign: str, algo: str | None = None) -> list[Job]:
    """The campaign's jobs (of ``algo`` alone, if given), in the list's order."""
    return [j for j in (*JOBS, *ATARI) if j.campaign == campaign and algo in (None, j.algo)]


def job(name: str) -> Job:
    """The job called ``name``.

    Raises:
        KeyError: there is none (the known ones are listed).
    """
    found = {j.name: j for j in (*JOBS, *ATARI)}
    if name not in found:
        raise KeyError(f"no job {name!r}: give one of {sorted(found)}")
    return found[name]
