"""RL Zoo's PPO and A2C entries in border_py's fields.

One opt step is one rollout: ``trainer.opt_interval = n_steps * n_envs`` env steps with no warm-up, the
rollout buffer and the vector env both sized by ``n_envs``. ``lin_X`` learning rates and clip ranges fall
linearly from X to 0 over ``n_timesteps`` (``*_schedule: linear``, ``schedule_env_steps``), as SB3's
progress-based schedules do. ``normalize`` (SB3's ``VecNormalize``) is the agent's observation and
reward normalisation.
"""

from __future__ import annotations

from campaigns.rlzoo.draft import Draft, as_int, schedule, typed
from campaigns.rlzoo.envs import EnvId
from campaigns.rlzoo.policies import actor_critic_policy, budget_and_discount, number

_SHARED: dict[str, type[bool | int | float]] = {
    "gae_lambda": float, "ent_coef": float, "vf_coef": float, "normalize_advantage": bool,
}  # fmt: skip
RENAMED: dict[str, dict[str, type[bool | int | float]]] = {
    "ppo": {**_SHARED, "n_epochs": int},
    "a2c": _SHARED,
}
"""The keys that are agent fields of the same name and unit, and their type."""


def translate_on_policy(draft: Draft, env: EnvId) -> None:
    """Translates a PPO or A2C entry into ``draft``."""
    budget = budget_and_discount(draft)
    draft.put("step_processor", type="simple")
    rollout = _rollout(draft, env)
    _learning_rate(draft, budget)
    if draft.algo == "ppo":
        _ppo(draft, budget, rollout)
    else:
        _a2c(draft)
    for key, kind in RENAMED[draft.algo].items():
        value = typed(draft, key, kind)
        if value is not None:
            draft.put("agent", **{key: value})
    draft.put("agent", max_grad_norm=_optional(draft, "max_grad_norm"))
    _normalize(draft)
    _gsde(draft)
    actor_critic_policy(draft)
    draft.finish()


def _optional(draft: Draft, key: str) -> float | None:
    value = draft.take(key)
    return None if value is None else number(draft, key, value)


def _rollout(draft: Draft, env: EnvId) -> int | None:
    """The vector env, the rollout buffer and the opt interval; returns the rollout's size."""
    n_envs, n_steps = as_int(draft, "n_envs"), as_int(draft, "n_steps")
    if n_envs is None or n_steps is None:
        return None
    draft.put("env", type="gym_vec", name=env.gym, num_envs=n_envs)
    draft.put("replay_buffer", type="rollout", n_steps=n_steps, num_envs=n_envs)
    draft.put("trainer", opt_interval=n_steps * n_envs, warmup_period=0)
    draft.note(
        f"n_steps {n_steps} x n_envs {n_envs}: one opt step per rollout of {n_steps * n_envs} env steps "
        "(trainer.opt_interval)"
    )
    return n_steps * n_envs


def _learning_rate(draft: Draft, budget: int | None) -> None:
    found = schedule(draft, "learning_rate")
    if found is None:
        return
    lr, linear = found
    draft.put("agent", lr=lr, lr_schedule="linear" if linear else "constant")
    if linear and budget is not None:  # without a budget, n_timesteps is refused already
        draft.put("agent", schedule_env_steps=budget)
        draft.note(f"learning_rate lin_{lr:g}: lr {lr:g} falling to 0 over {budget:,} env steps")


def _ppo(draft: Draft, budget: int | None, rollout: int | None) -> None:
    batch = as_int(draft, "batch_size")
    if batch is not None and rollout is not None and batch > rollout:
        # SB3 cuts each epoch's shuffled rollout into slices of batch_size: one slice, the whole rollout.
        draft.note(f"batch_size {batch} > the rollout's {rollout}: SB3's minibatch is the whole rollout")
        batch = rollout
    draft.put("agent", batch_size=batch)
    found = schedule(draft, "clip_range")
    if found is not None:
        clip, linear = found
        draft.put("agent", clip_range=clip, clip_schedule="linear" if linear else "constant")
        if linear and budget is not None:
            draft.put("agent", schedule_env_steps=budget)
            draft.note(f"clip_range lin_{clip:g}: {clip:g} falling to 0 over {budget:,} env steps")
    vf_clip = draft.take("clip_range_vf")
    if vf_clip is None or (isinstance(vf_clip, int | float) and vf_clip > 0):
        draft.put("agent", clip_range_vf=None if vf_clip is None else float(vf_clip))
    else:
        draft.refuse("clip_range_vf", f"{vf_clip!r}: border_py's is a fixed positive number or none")
    draft.put("agent", target_kl=_optional(draft, "target_kl"))


def _a2c(draft: Draft) -> None:
    if draft.take("use_rms_prop"):
        eps = number(draft, "rms_prop_eps", draft.take("rms_prop_eps"))
        draft.put("agent", optimizer="rmsprop", rmsprop_alpha=0.99, optimizer_eps=eps)
        return
    if draft.has("rms_prop_eps"):
        draft.refuse("rms_prop_eps", "RMSprop's epsilon, given with use_rms_prop False")
    draft.put("agent", optimizer="adam", optimizer_eps=1e-5)  # SB3's Adam epsilon for actor-critic policies
    draft.note("use_rms_prop False: Adam (epsilon 1e-5, SB3's)")


def _normalize(draft: Draft) -> None:
    """``normalize``: true, false, or the ``VecNormalize`` arguments (a dict, or Python source)."""
    value = draft.literal("normalize")
    if isinstance(value, bool):
        value = {"norm_obs": value, "norm_reward": value}
    if not isinstance(value, dict):
        if value is not None:
            draft.refuse("normalize", f"{value!r}: expected true, false or VecNormalize's arguments")
        return
    fields = {"norm_obs": "normalize_obs", "norm_reward": "normalize_reward", "clip_obs": "clip_obs",
              "clip_reward": "clip_reward"}  # fmt: skip
    unknown = sorted(set(value) - set(fields))
    if unknown:
        draft.refuse("normalize", f"VecNormalize's {unknown}: no border_py counterpart")
        return
    draft.put("agent", normalize_obs=True, normalize_reward=True)
    draft.put("agent", **{fields[key]: item for key, item in value.items()})
    if value.get("norm_obs", True) or value.get("norm_reward", True):
        draft.note("normalize: the agent's observation/reward normalisation (SB3's VecNormalize)")


def _gsde(draft: Draft) -> None:
    use, freq = draft.take("use_sde"), draft.take("sde_sample_freq")
    draft.put("agent", gsde=bool(use))
    if isinstance(freq, int) and freq > 0:
        draft.put("agent", sde_sample_freq=freq)
    elif freq in (-1, None):
        draft.put("agent", sde_sample_freq=None)  # SB3's -1: new noise weights once per rollout
    else:
        draft.refuse("sde_sample_freq", f"{freq!r}: expected -1 or a positive whole number")
