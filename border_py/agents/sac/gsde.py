"""gSDE's noise weights while acting, for the SAC family (SAC, TQC, CrossQ with ``gsde``): when they are
drawn, what is kept of them, and their entry in ``state.pt``.

SB3's off-policy loop (``OffPolicyAlgorithm.collect_rollouts`` with ``use_sde``) draws new weights at the
start of each collection block of ``train_freq`` env steps, that is after each training phase, and every
``sde_sample_freq`` steps inside a block. Here a block ends at each ``opt`` call (the trainer calls it every
``opt_interval`` env steps after the warm-up), so with the zoo's blocks (``opt_interval`` = SB3's
``train_freq``) the weights change exactly when SB3's do. A training update draws its own weights
(`border_py.agents.sac.soft.SoftActorCritic`), as SB3's ``SAC.train`` does at each gradient step.
"""

from __future__ import annotations

from typing import Any

import torch

from border_py.agents.sac.losses import gsde_noise, gsde_weight_std
from border_py.agents.toolkit import saved_count

__all__ = ["ActingNoise"]


class ActingNoise:
    """The noise weights the policy explores with: one ``(latent_dim, act_dim)`` matrix per sub-env, each
    entry drawn from ``N(0, std^2)`` with the policy's current ``std`` (`gsde_weight_std` of its
    ``log_std``), held until the first act after the next ``opt`` call (`new_block`), or after
    ``sample_freq`` acts, whichever comes first; a call with another number of sub-envs draws anew.

    Args:
        sample_freq: in acts (env steps of each sub-env): how often new weights are drawn inside a block;
            ``None``: once per block.
        use_expln: the weights' standard deviations are ``expln(log_std)`` rather than ``exp(log_std)``.
        generator: the agent's generator (every draw comes from it).

    Attributes:
        weights: the current weights, ``(n_envs, latent_dim, act_dim)``; ``None`` before the first act.
        step: acts since the block began (0: the next act draws).

    Examples:
        >>> noise = ActingNoise(None, False, torch.Generator().manual_seed(0))
        >>> noise.noise(torch.ones(2, 3), torch.zeros(3, 1)).shape, noise.step
        (torch.Size([2, 1]), 1)
        >>> first = noise.weights
        >>> _ = noise.noise(torch.ones(2, 3), torch.zeros(3, 1)); noise.weights is first  # same block
        True
        >>> noise.new_block(); _ = noise.noise(torch.ones(2, 3), torch.zeros(3, 1)); noise.weights is first
        False
    """

    def __init__(self, sample_freq: int | None, use_expln: bool, generator: torch.Generator) -> None:
        self.sample_freq = sample_freq
        self.use_expln = use_expln
        self.generator = generator
        self.weights: torch.Tensor | None = None
        self.step = 0

    def noise(self, latent: torch.Tensor, log_std: torch.Tensor) -> torch.Tensor:
        """The noise ``latent @ W`` of each sub-env's ``latent`` row ``(n, latent_dim)``, ``(n,
        act_dim)``, drawing new weights first where due; counts one act."""
        n, freq = latent.shape[0], self.sample_freq
        if (
            self.weights is None
            or self.weights.shape[0] != n
            or self.step == 0
            or (freq is not None and self.step % freq == 0)
        ):
            std = gsde_weight_std(log_std, self.use_expln)
            self.weights = std * torch.randn(n, *std.shape, generator=self.generator, device=std.device)
        self.step += 1
        return gsde_noise(latent, self.weights)

    def new_block(self) -> None:
        """Ends the block: the next act draws new weights (called after each ``opt`` call, and when an
        actor's copy of the policy takes new parameters)."""
        self.step = 0

    def state(self) -> dict[str, Any]:
        """``state.pt``'s ``sde`` entry: the weights (``None`` before the first act) and the step."""
        return {"weights": self.weights, "step": self.step}

    def check_state(self, state: Any, log_std_shape: torch.Size) -> None:
        """Refuses, changing nothing, an ``sde`` entry `load_state` would take wrongly.

        Raises:
            ValueError: it is not a mapping, its step is not a count, or its weights are not ``None`` nor
                a float tensor ``(n_envs, *log_std_shape)`` (naming the key).
        """
        if not isinstance(state, dict):
            raise ValueError(f"sde must be a mapping, got {type(state).__name__}")
        saved_count(state.get("step"), "sde.step")
        weights = state.get("weights")
        if weights is None:
            return
        shape = f"a float tensor (n_envs, {', '.join(map(str, log_std_shape))})"
        if not isinstance(weights, torch.Tensor):
            raise ValueError(f"sde.weights must be None or {shape}, got {weights!r:.60}")
        if not weights.is_floating_point() or weights.dim() != 3 or weights.shape[1:] != log_std_shape:
            raise ValueError(
                f"sde.weights must be None or {shape}, got {weights.dtype} of shape {tuple(weights.shape)}"
            )

    def load_state(self, state: dict[str, Any], device: torch.device) -> None:
        """Restores what `state` returned (checked by `check_state`)."""
        weights = state["weights"]
        self.weights = None if weights is None else weights.to(device)
        self.step = int(state["step"])
