"""RL Zoo's hyperparameter files, entry by entry, into border_py's experiment data: each (algorithm, env)
is translated (complete: SB3's defaults fill what the entry omits), refused (naming every key border_py
cannot take), or skipped (an env border_py does not run, with the reason)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

from border_py.run import zoo
from border_py.trainer import TrainerConfig
from border_py.trainer.checks import opts_due
from campaigns.rlzoo.draft import Draft, Refusal
from campaigns.rlzoo.envs import EnvId, gym_id
from campaigns.rlzoo.off_policy import translate_off_policy
from campaigns.rlzoo.on_policy import translate_on_policy
from campaigns.rlzoo.sb3 import DEFAULTS

RLZOO_VERSION = "2.9.2"
"""The rl_zoo3 release whose ``hyperparams/`` `HYPERPARAMS` holds."""
HYPERPARAMS = Path(__file__).parent / "hyperparams"
"""RL Zoo's hyperparameter files, copied unchanged from the rl_zoo3 2.9.2 wheel (``rl_zoo3/hyperparams/``;
MIT licence beside them) for the algorithms border_py has."""

ALGOS = ("dqn", "qrdqn", "sac", "tqc", "td3", "ddpg", "ppo", "a2c")
"""RL Zoo's algorithms that border_py has (DDPG as TD3's ``ddpg`` variant)."""
ZOO_ALGO = {"ddpg": "td3"}
"""The border_py zoo file an RL Zoo algorithm's entries go to, where it is not its own name."""
VARIANT = {"ddpg": "ddpg"}
"""The variant of the entry an RL Zoo algorithm's entries become, where they are one."""
EVAL_FREQ, EVAL_EPISODES = 25_000, 5
"""rl_zoo3's ``train.py`` evaluates every 25,000 env steps on 5 episodes (its ``--eval-freq`` and
``--eval-episodes`` defaults; SB3's ``EvalCallback`` counts the frequency per call of the vector env,
which rl_zoo3 divides by ``n_envs``, so it is env steps of all sub-envs together, as border_py counts)."""


@attrs.frozen
class Outcome:
    """What became of one RL Zoo entry."""

    algo: str
    """RL Zoo's algorithm (``ddpg`` for TD3's variant)."""
    key: str
    """RL Zoo's key (``Hopper-v4``, ``atari``)."""
    env: EnvId | None = None
    """The env, unless skipped."""
    data: dict[str, dict[str, Any]] | None = None
    """The translation (every field it sets, by section), unless skipped or refused."""
    notes: tuple[str, ...] = ()
    """The conversions made."""
    refused: tuple[Refusal, ...] = ()
    """The keys border_py cannot take (empty: translated)."""
    skipped: str | None = None
    """Why the entry was not translated at all."""

    @property
    def zoo_algo(self) -> str:
        """border_py's zoo file (``td3`` for DDPG)."""
        return ZOO_ALGO.get(self.algo, self.algo)

    @property
    def variant(self) -> str | None:
        """The variant of the entry it becomes (``ddpg``), or ``None``."""
        return VARIANT.get(self.algo)

    @property
    def name(self) -> str:
        """``ppo Hopper-v5`` (``td3 Pendulum-v1 variant ddpg``), RL Zoo's key where skipped."""
        env = self.env.gym if self.env else self.key
        return f"{self.zoo_algo} {env}" + (f" variant {self.variant}" if self.variant else "")

    def source(self, version: str) -> str:
        """The citation of the entry: ``rl_zoo3 2.9.2 hyperparams/ppo.yml Hopper-v4``."""
        return f"rl_zoo3 {version} hyperparams/{self.algo}.yml {self.key}"


def read_hyperparams(directory: Path, algo: str) -> dict[str, Any]:
    """RL Zoo's ``<directory>/<algo>.yml`` (``!!float`` tags and ``<<`` merge keys are YAML's own).

    Raises:
        ValueError: the file is not a mapping of entries.
    """
    data = yaml.safe_load((directory / f"{algo}.yml").read_text())
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{directory / algo}.yml: expected a mapping of env ids to hyperparameters")
    return data


def translate_entry(algo: str, key: str, given: Mapping[str, Any]) -> Outcome:
    """RL Zoo's ``algo`` entry ``key`` (its keys ``given``), translated, refused or skipped."""
    env = gym_id(key)
    if isinstance(env, str):
        return Outcome(algo, key, skipped=env)
    draft = Draft(algo, given, DEFAULTS[algo])
    draft.put("agent", type=ZOO_ALGO.get(algo, algo))
    if algo in ("ppo", "a2c"):
        translate_on_policy(draft, env)
    else:
        translate_off_policy(draft, env)
    _evaluation(draft)
    if env.renamed:
        draft.notes.insert(0, f"env {env.rlzoo} -> {env.gym} (Gymnasium 1.x)")
    refused = tuple(draft.refused)
    return Outcome(algo, key, env, None if refused else draft.data, tuple(draft.notes), refused)


def _evaluation(draft: Draft) -> None:
    """rl_zoo3's evaluation (`EVAL_FREQ`, `EVAL_EPISODES`) in the trainer's units. Where the budget ends
    before 25,000 env steps, rl_zoo3 never evaluates during training and keeps the last model: border_py
    evaluates once, at the last opt step (it refuses a run that would never evaluate)."""
    trainer = draft.data.get("trainer", {})
    budget = trainer.get("max_env_steps")
    interval, warmup = trainer.get("opt_interval") or 1, trainer.get("warmup_period") or 0
    if budget is None:  # refused already (n_timesteps)
        return
    reachable = opts_due(0, budget, warmup, interval)
    draft.put("evaluator", n_episodes=EVAL_EPISODES)
    if -(-EVAL_FREQ // interval) <= reachable:
        draft.put("trainer", eval_interval=None, eval_interval_env_steps=EVAL_FREQ)
        # A record averages what its window saw: one evaluation a window keeps the curve's best the best's.
        between = max(1, EVAL_FREQ // interval)
        if _record_interval(ZOO_ALGO.get(draft.algo, draft.algo)) > between:
            draft.put("trainer", record_interval=between)
            steps = "opt step" if between == 1 else f"{between} opt steps"
            draft.note(f"records every {steps} (trainer.record_interval): one evaluation each")
        return
    draft.put("trainer", eval_interval=max(1, reachable), eval_interval_env_steps=None)
    draft.note(
        f"rl_zoo3 evaluates every {EVAL_FREQ:,} env steps, more than the budget's {budget:,}: once here, "
        f"at the last opt step ({max(1, reachable)}, trainer.eval_interval)"
    )


@functools.cache  # one read of each zoo file, not one per entry translated
def _record_interval(zoo_algo: str) -> int:
    """The record interval an entry of the zoo's ``<zoo_algo>.yaml`` gets unless it sets its own."""
    trainer = zoo.zoo_file(zoo_algo).get("defaults", {}).get("trainer", {})
    return int(trainer.get("record_interval", attrs.fields(TrainerConfig).record_interval.default))


def translate_all(directory: Path = HYPERPARAMS, algos: tuple[str, ...] = ALGOS) -> list[Outcome]:
    """Every entry of RL Zoo's files for ``algos`` in ``directory``, in the files' order."""
    return [
        translate_entry(algo, key, given)
        for algo in algos
        for key, given in read_hyperparams(directory, algo).items()
    ]
