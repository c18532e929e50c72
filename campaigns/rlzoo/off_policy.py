"""RL Zoo's DQN, QR-DQN, SAC, TQC, TD3 and DDPG entries in border_py's fields.

SB3 takes ``gradient_steps`` updates (-1: as many as env steps) every ``train_freq`` env steps of each
sub-env, in one block; border_py takes an opt step every ``trainer.opt_interval`` env steps, each of
``n_updates_per_opt`` updates. For SAC, TQC (without gSDE), TD3 and DDPG the ratio is kept, reduced: 128
updates every 256 env steps become one every 2, spread out rather than in blocks. DQN and QR-DQN keep
SB3's blocks whole: their greedy policy then holds between blocks as SB3's does (spread out on
MountainCar-v0, it flipped between near-tied values at every update and never reached the goal).
``learning_starts`` is ``trainer.warmup_period`` (both in env steps). DQN's ``target_update_interval``
counts env steps in SB3, updates here, and SB3 checks it only between blocks, so the target moves at
most once per block.
A ``lin_X`` learning rate falls linearly to 0 over the budget's opt steps (``schedule_opt_steps``): SB3's
falls over its env steps, and an opt step is due every ``opt_interval`` of them after the warm-up.
SAC's and TQC's gSDE (``use_sde``) keeps SB3's blocks whole: SB3 draws new noise weights at the start of
each block, and border_py's SAC after each opt call, so an opt step of ``gradient_steps`` updates every
``train_freq`` env steps draws them when SB3 does.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from border_py.trainer.checks import opts_due
from campaigns.rlzoo.draft import Draft, as_int, schedule, typed
from campaigns.rlzoo.envs import EnvId
from campaigns.rlzoo.policies import budget_and_discount, number, off_policy_policy

Q = ("dqn", "qrdqn")
"""The Q-learning algorithms: SB3's blocks of updates are kept whole (``n_updates_per_opt``)."""
OU_DT = 1e-2
"""SB3's Ornstein-Uhlenbeck time step: its noise moves by ``theta * dt`` toward 0 and ``sigma * sqrt(dt)``
at random per step, border_py's by ``ou_theta`` and ``exploration_std``."""


def translate_off_policy(draft: Draft, env: EnvId) -> None:
    """Translates a DQN, QR-DQN, SAC, TQC, TD3 or DDPG entry into ``draft``."""
    budget = budget_and_discount(draft)
    n_envs = _env_and_buffer(draft, env)
    gsde = draft.algo in ("sac", "tqc") and _uses_gsde(draft)
    # Q-learning's greedy policy holds between SB3's blocks; spread out, near-tied values flip it every
    # update (RL Zoo's MountainCar-v0 entry then never reached the goal on 3 seeds: docs/results.md).
    keep = "gSDE's noise weights change" if gsde else "the greedy policy changes" if draft.algo in Q else None
    block = _cadence(draft, n_envs, keep_block=keep)
    for key in ("batch_size", "tau"):
        value = typed(draft, key, int if key == "batch_size" else float)
        if value is not None:
            draft.put("agent", **{key: value})
    if draft.algo == "qrdqn":  # sb3-contrib's QRDQN sets Adam's epsilon to 0.01 / batch_size (the paper's)
        batch = draft.data.get("agent", {}).get("batch_size")
        if isinstance(batch, int) and batch > 0:
            draft.put("agent", adam_eps=0.01 / batch)
    if draft.algo in ("dqn", "qrdqn"):
        _learning_rate(draft, budget, ("lr",))
        _q_learning(draft, budget, block)
    elif draft.algo in ("sac", "tqc"):
        _learning_rate(draft, budget, ("actor_lr", "critic_lr", "alpha_lr"))
        _soft(draft, gsde)
    else:
        _learning_rate(draft, budget, ("actor_lr", "critic_lr"))
        _td3(draft)
    draft.finish()


def _env_and_buffer(draft: Draft, env: EnvId) -> int:
    n_envs = as_int(draft, "n_envs") or 1
    if n_envs > 1:
        draft.put("env", type="gym_vec", name=env.gym, num_envs=n_envs)
    else:
        draft.put("env", type="gym", name=env.gym)
    draft.put("step_processor", type="nstep", n_steps=as_int(draft, "n_steps"))
    draft.put("replay_buffer", type="simple", capacity=as_int(draft, "buffer_size"))
    draft.put("trainer", warmup_period=as_int(draft, "learning_starts"))
    return n_envs


def _uses_gsde(draft: Draft) -> bool:
    """``use_sde``: a boolean, else refused (and ``False``)."""
    use = draft.take("use_sde")
    if not isinstance(use, bool):
        draft.refuse("use_sde", f"{use!r} is not a boolean")
        return False
    return use


def _cadence(draft: Draft, n_envs: int, keep_block: str | None = None) -> tuple[int, int] | None:
    """``train_freq`` and ``gradient_steps`` as ``trainer.opt_interval`` and ``agent.n_updates_per_opt``,
    the ratio reduced unless ``keep_block`` (what changes once per block, as SB3's does); returns SB3's
    block: (env steps, updates)."""
    freq, grads = draft.take("train_freq"), draft.take("gradient_steps")
    if isinstance(freq, list) and len(freq) == 2 and freq[1] == "step":
        freq = freq[0]
    if not isinstance(freq, int) or freq < 1:
        draft.refuse("train_freq", f"{freq!r}: border_py's opt steps follow env steps, not episodes")
        return None
    if not isinstance(grads, int) or grads == 0 or grads < -1:
        draft.refuse("gradient_steps", f"{grads!r}: expected -1 or a positive whole number")
        return None
    env_steps = freq * n_envs
    updates = env_steps if grads == -1 else grads
    ratio = Fraction(updates, env_steps)
    if keep_block:
        draft.put("trainer", opt_interval=env_steps)
        draft.put("agent", n_updates_per_opt=updates)
        draft.note(
            f"train_freq {freq} / gradient_steps {grads}: {updates} updates every {env_steps} env steps in "
            f"one opt step, not spread out ({keep_block} once per block, as SB3's does)"
        )
        return env_steps, updates
    draft.put("trainer", opt_interval=ratio.denominator)
    draft.put("agent", n_updates_per_opt=ratio.numerator)
    if (updates, env_steps) != (ratio.numerator, ratio.denominator):
        draft.note(
            f"train_freq {freq} / gradient_steps {grads}: {updates} updates every {env_steps} env steps "
            f"become {ratio.numerator} every {ratio.denominator} (trainer.opt_interval), spread out"
        )
    return env_steps, updates


def _learning_rate(draft: Draft, budget: int | None, fields: tuple[str, ...]) -> None:
    """SB3's one learning rate as each of border_py's optimisers' ``fields``; ``lin_X`` as a linear
    ``lr_schedule`` over the opt steps ``budget`` env steps call for (after the cadence and the warm-up
    are translated)."""
    found = schedule(draft, "learning_rate")
    if found is None:
        return
    lr, linear = found
    draft.put("agent", **dict.fromkeys(fields, lr))
    trainer = draft.data.get("trainer", {})
    interval, warmup = trainer.get("opt_interval"), trainer.get("warmup_period")
    if not linear or budget is None or interval is None or warmup is None:
        return  # constant, or a key the horizon needs is refused already
    opts = opts_due(0, budget, warmup, interval)
    draft.put("agent", lr_schedule="linear", schedule_opt_steps=opts)
    draft.note(
        f"learning_rate lin_{lr:g}: {lr:g} falling to 0 over {opts:,} opt steps (schedule_opt_steps: those "
        f"of the {budget:,} env steps, one every {interval} after the first {warmup:,})"
    )


def _q_learning(draft: Draft, budget: int | None, block: tuple[int, int] | None) -> None:
    max_grad_norm = draft.take("max_grad_norm")
    draft.put("agent", max_grad_norm=None if max_grad_norm is None else number(draft, "max_grad_norm",
                                                                                max_grad_norm))  # fmt: skip
    interval = as_int(draft, "target_update_interval")
    if interval is not None and block is not None:
        env_steps, updates = block
        opt_steps = max(1, round(max(interval, env_steps) * updates / env_steps))
        draft.put("agent", target_update_interval=opt_steps)
        draft.note(f"target_update_interval {interval} env steps: every {opt_steps} updates")
    fraction = typed(draft, "exploration_fraction", float)
    explorer = {"kind": "epsilon_greedy", "eps_start": typed(draft, "exploration_initial_eps", float),
                "eps_final": typed(draft, "exploration_final_eps", float)}  # fmt: skip
    if fraction is not None and budget is not None:
        explorer["final_step"] = round(fraction * budget)
        draft.note(f"exploration_fraction {fraction:g} of {budget:,}: explorer.final_step "
                   f"{explorer['final_step']:,} env steps")  # fmt: skip
    draft.put("agent", explorer=explorer)
    off_policy_policy(draft, ("hidden",), ("n_quantiles",) if draft.algo == "qrdqn" else ())


def _soft(draft: Draft, gsde: bool) -> None:
    """SAC's and TQC's: the entropy coefficient, the target, gSDE, the quantiles."""
    coef = draft.take("ent_coef")
    start = coef.partition("_")[2] if isinstance(coef, str) and coef.startswith("auto") else None
    if start is not None and re.fullmatch(r"|\d*\.?\d+(e-?\d+)?", start):
        draft.put("agent", auto_alpha=True, init_alpha=float(start) if start else 1.0)
    elif isinstance(coef, int | float) and not isinstance(coef, bool):
        draft.put("agent", auto_alpha=False, init_alpha=float(coef))
    else:
        draft.refuse("ent_coef", f"{coef!r}: expected auto, auto_X or a number")
    target = draft.take("target_entropy")
    draft.put("agent", target_entropy=None if target == "auto" else number(draft, "target_entropy", target))
    if draft.take("target_update_interval") != 1:
        draft.refuse("target_update_interval", "border_py's SAC moves its targets after every update")
    _gsde(draft, gsde)
    if draft.algo == "tqc":
        draft.put("agent", top_quantiles_to_drop_per_net=as_int(draft, "top_quantiles_to_drop_per_net"))
    extra = ("n_critics", "n_quantiles") if draft.algo == "tqc" else ("n_critics",)
    off_policy_policy(draft, ("actor_hidden", "critic_hidden"), extra)


def _gsde(draft: Draft, gsde: bool) -> None:
    """``use_sde``'s companions: ``sde_sample_freq`` (SB3's -1, once per block, is ``None``: once per opt
    step; a count restarts at each block in SB3 and at each opt step here) and ``use_sde_at_warmup``;
    and the warm-up's actions: uniform in the box (``warmup_actions``), as SB3's before
    ``learning_starts``, unless gSDE acts then. Its policy keywords are `off_policy_policy`'s."""
    freq, at_warmup = draft.take("sde_sample_freq"), draft.take("use_sde_at_warmup")
    draft.put("agent", gsde=gsde)
    if isinstance(freq, int) and not isinstance(freq, bool) and freq > 0:
        draft.put("agent", sde_sample_freq=freq)
    elif freq == -1:
        draft.put("agent", sde_sample_freq=None)
    else:
        draft.refuse("sde_sample_freq", f"{freq!r}: expected -1 or a positive whole number")
    if not isinstance(at_warmup, bool):
        draft.refuse("use_sde_at_warmup", f"{at_warmup!r} is not a boolean")
    warmup = draft.data.get("trainer", {}).get("warmup_period")
    if warmup and not (gsde and at_warmup is True):
        draft.put("agent", warmup_actions="uniform")  # SB3 samples the action space before learning_starts
    elif gsde and warmup:
        draws = f"every {freq} env steps" if freq != -1 else "once, kept until the first opt step"
        draft.note(
            f"warm-up of {warmup:,} env steps with gSDE (use_sde_at_warmup), as SB3's: its noise weights "
            f"drawn {draws}"
        )


def _td3(draft: Draft) -> None:
    """TD3's (and DDPG's, TD3 without its tricks): the delays, the target smoothing, the exploration."""
    if draft.algo == "td3":
        draft.put("agent", policy_delay=as_int(draft, "policy_delay"),
                  target_noise=typed(draft, "target_policy_noise", float),
                  target_noise_clip=typed(draft, "target_noise_clip", float))  # fmt: skip
    else:
        draft.put("agent", policy_delay=1, target_noise=0.0)
    kind, std = draft.take("noise_type"), number(draft, "noise_std", draft.take("noise_std"))
    if kind is None or kind == "normal":
        draft.put("agent", exploration="gaussian", exploration_std=std if kind else 0.0)
    elif kind == "ornstein-uhlenbeck" and std is not None:
        theta, sigma = 0.15 * OU_DT, std * math.sqrt(OU_DT)
        draft.put("agent", exploration="ou", ou_theta=theta, exploration_std=sigma)
        draft.note(
            f"ornstein-uhlenbeck noise (sigma {std:g}, SB3's theta 0.15 and dt 0.01): ou_theta {theta:g}, "
            f"exploration_std {sigma:g} per env step; 0 at each episode's start, as SB3 resets it"
        )
    else:
        draft.refuse("noise_type", f"{kind!r}: border_py's TD3 explores with normal or OU noise")
    off_policy_policy(draft, ("actor_hidden", "critic_hidden"), ("n_critics",))
