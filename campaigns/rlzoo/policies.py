"""RL Zoo's ``policy_kwargs`` (and the keys every algorithm shares: the budget, the discount, the policy
class) in border_py's agent fields. A policy keyword border_py has no field for is refused as
``policy_kwargs.<keyword>``."""

from __future__ import annotations

from typing import Any

from campaigns.rlzoo.draft import Draft, as_int
from campaigns.rlzoo.literal import Symbol
from campaigns.rlzoo.sb3 import POLICY_DEFAULTS


def budget_and_discount(draft: Draft) -> int | None:
    """``n_timesteps`` (the budget, in env steps), ``gamma`` and ``policy``; returns the budget."""
    budget = as_int(draft, "n_timesteps")
    if budget is not None:
        draft.put("trainer", max_env_steps=budget, max_opts=None)
    gamma = draft.take("gamma")
    if isinstance(gamma, int | float) and not isinstance(gamma, bool):
        draft.put("step_processor", gamma=float(gamma))
    else:
        draft.refuse("gamma", f"{gamma!r} is not a number")
    policy = draft.take("policy")
    if policy != "MlpPolicy":
        draft.refuse("policy", f"{policy}: border_py reads flat observations here (MlpPolicy)")
    return budget


def policy_kwargs(draft: Draft) -> dict[str, Any] | None:
    """The entry's ``policy_kwargs`` over SB3's policy defaults; ``None`` where they are refused."""
    given = draft.literal("policy_kwargs") if draft.has("policy_kwargs") else {}
    if given is None:
        return None
    if not isinstance(given, dict):
        draft.refuse("policy_kwargs", f"{given!r} is not a dict")
        return None
    return {**POLICY_DEFAULTS[draft.algo], **given}


def refuse_rest(draft: Draft, kwargs: dict[str, Any]) -> None:
    """Refuses each policy keyword no translation took."""
    for key, value in kwargs.items():
        draft.refuse(f"policy_kwargs.{key}", f"{_text(value)}: no border_py counterpart")


def _text(value: Any) -> str:
    return value.name if isinstance(value, Symbol) else repr(value)


def _layers(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return list(value)
    return None


def net_arch(draft: Draft, value: Any, heads: tuple[str, str] | None) -> tuple[list[int], list[int]] | None:
    """``net_arch`` as the two networks' layers: a list (both alike) or, with ``heads``,
    ``dict(<heads>)``; ``None`` and refused otherwise."""
    if _layers(value) is not None:
        return list(value), list(value)
    if heads is not None and isinstance(value, dict) and set(value) == set(heads):
        first, second = _layers(value[heads[0]]), _layers(value[heads[1]])
        if first is not None and second is not None:
            return first, second
    shapes = f"a list of widths or dict{heads}" if heads else "a list of widths"
    draft.refuse("policy_kwargs.net_arch", f"{value!r}: expected {shapes}")
    return None


def number(draft: Draft, key: str, value: Any) -> float | None:
    """``value`` as a float; ``None`` and ``key`` refused if it is not a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    draft.refuse(key, f"{value!r} is not a number")
    return None


def activation(draft: Draft, value: Any, known: dict[str, str]) -> str | None:
    """``activation_fn`` as border_py names it; ``None`` and refused for one border_py lacks."""
    name = known.get(value.name) if isinstance(value, Symbol) else None
    if name is None:
        draft.refuse("policy_kwargs.activation_fn", f"{_text(value)}: border_py has {sorted(known)}")
    return name


def actor_critic_policy(draft: Draft) -> None:
    """PPO's and A2C's policy: the networks, the activation, orthogonal initialisation, the initial
    log-std."""
    kwargs = policy_kwargs(draft)
    if kwargs is None:
        return
    arch = net_arch(draft, kwargs.pop("net_arch"), ("pi", "vf"))
    if arch is not None and arch[0] != arch[1]:
        draft.refuse("policy_kwargs.net_arch", f"{arch}: border_py's policy and value nets have one shape")
    elif arch is not None:
        draft.put("agent", hidden=arch[0])
    name = activation(draft, kwargs.pop("activation_fn"), {"nn.Tanh": "tanh", "nn.ReLU": "relu"})
    if name is not None:
        draft.put("agent", activation=name)
    _put_flag(draft, kwargs, "ortho_init")
    _put_number(draft, kwargs, "log_std_init")
    refuse_rest(draft, kwargs)


def off_policy_policy(draft: Draft, fields: tuple[str, ...], extra: tuple[str, ...] = ()) -> None:
    """An off-policy agent's networks: ``fields`` the hidden-layer fields (``hidden``, or the actor's
    and the critic's), ``extra`` the keywords that are agent fields of the same name (``n_quantiles``,
    ``n_critics``). Their activation is ReLU, as SB3's."""
    kwargs = policy_kwargs(draft)
    if kwargs is None:
        return
    arch = net_arch(draft, kwargs.pop("net_arch"), ("pi", "qf") if len(fields) == 2 else None)
    if arch is not None:
        draft.put("agent", **dict(zip(fields, arch, strict=False)))
    activation(draft, kwargs.pop("activation_fn"), {"nn.ReLU": "relu"})
    for key in extra:
        value = kwargs.pop(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            draft.put("agent", **{key: value})
        else:
            draft.refuse(f"policy_kwargs.{key}", f"{value!r} is not a positive whole number")
    if draft.algo in ("sac", "tqc"):
        _gsde_policy(draft, kwargs)
    refuse_rest(draft, kwargs)


def _gsde_policy(draft: Draft, kwargs: dict[str, Any]) -> None:
    """SAC's and TQC's gSDE keywords (SB3 reads them with ``use_sde`` only): the noise weights' initial
    log-std, ``expln``, and ``clip_mean`` (SB3 holds the mean in ``[-clip_mean, clip_mean]`` where it is
    above 0; given with ``use_sde`` alone, as SB3 reads it with it alone)."""
    _put_number(draft, kwargs, "log_std_init")
    _put_flag(draft, kwargs, "use_expln")
    clip = number(draft, "policy_kwargs.clip_mean", kwargs.pop("clip_mean"))
    if clip is not None and clip > 0 and draft.data.get("agent", {}).get("gsde"):
        draft.put("agent", clip_mean=clip)


def _put_number(draft: Draft, kwargs: dict[str, Any], key: str) -> None:
    """The ``policy_kwargs`` number ``key`` as the agent field of the same name (refused if not one)."""
    value = number(draft, f"policy_kwargs.{key}", kwargs.pop(key))
    if value is not None:
        draft.put("agent", **{key: value})


def _put_flag(draft: Draft, kwargs: dict[str, Any], key: str) -> None:
    """The ``policy_kwargs`` boolean ``key`` as the agent field of the same name (refused if not one)."""
    value = kwargs.pop(key)
    if isinstance(value, bool):
        draft.put("agent", **{key: value})
    else:
        draft.refuse(f"policy_kwargs.{key}", f"{value!r} is not a boolean")
