"""The PPO agent: epochs of clipped-surrogate minibatch updates over each rollout, on the on-policy base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import torch

from border_py.agents.on_policy.agent import OnPolicyAgent
from border_py.agents.on_policy.model import ActorCritic
from border_py.agents.parts import Trained
from border_py.agents.ppo.losses import approx_kl, clipped_surrogate, value_loss

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.ppo.config import PpoConfig

_STATS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")


class Ppo(OnPolicyAgent["PpoConfig"]):
    """Proximal policy optimisation (Schulman et al., 2017) with GAE, over rollouts of a
    `RolloutBuffer`.

    Acting, the rollout's advantages and returns, normalisation and gSDE are `OnPolicyAgent`'s. The update
    makes ``n_epochs`` passes of shuffled minibatches of the clipped surrogate, the value loss and the
    entropy bonus, with an early stop on ``target_kl``, at the learning rate and clip range of the
    schedules. The network is saved to ``ppo.pt`` and its Adam under ``optimizer``.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its actions: discrete, or a box (whose bounds the env
            clips the actions to, as SB3 does).
        seed: seeds network initialisation and all sampling.

    Raises:
        ValueError: gSDE with discrete actions, or a device this machine does not have.

    Examples:
        >>> from border_py.agents import PpoConfig
        >>> from border_py.base import Spaces
        >>> agent = Ppo(PpoConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    name = "PPO"
    config: PpoConfig

    def _trained(self, model: ActorCritic) -> Trained[ActorCritic]:
        c = self.config
        return Trained.adam(model, "ppo.pt", "optimizer", c.lr, self.device, eps=c.adam_eps)

    @property
    def batch_size(self) -> int:
        """In transitions per minibatch."""
        return self.config.batch_size

    def _clip_range(self) -> float:
        """The surrogate's clip range at the current env step."""
        c = self.config
        return c.clip_range * (self._remaining() if c.clip_schedule == "linear" else 1.0)

    def _minibatch(
        self, data: dict[str, torch.Tensor], idx: torch.Tensor | None, clip: float
    ) -> dict[str, torch.Tensor]:
        """The losses and diagnostics of the minibatch ``idx`` (``None``: all of ``data``); the loss to
        minimise is under ``loss``."""
        batch = data if idx is None else {k: v[idx] for k, v in data.items()}
        bf16 = self.config.update_dtype == "bfloat16"
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=bf16):
            latent, out, value = self.parts.model.net(batch["obs"])
        # The losses in float32 (a no-op in float32): log-probabilities and ratios lose too much in bf16.
        return self._losses(batch, latent.float(), out.float(), value.float(), clip)

    def _losses(
        self,
        batch: dict[str, torch.Tensor],
        latent: torch.Tensor,
        out: torch.Tensor,
        value: torch.Tensor,
        clip: float,
    ) -> dict[str, torch.Tensor]:
        """The losses and diagnostics of ``batch`` given the network's outputs on its observations; the
        loss to minimise is under ``loss``."""
        c = self.config
        log_prob, entropy = self._log_prob_entropy(latent, out, batch["act"], batch.get("legal"))
        advantage = self._normalized(batch["advantage"])
        old_log_prob = batch["old_log_prob"]
        policy_loss, ratio = clipped_surrogate(log_prob, old_log_prob, advantage, clip)
        v_loss = value_loss(value, batch["old_value"], batch["returns"], c.clip_range_vf)
        loss = policy_loss - c.ent_coef * entropy.mean() + c.vf_coef * v_loss
        with torch.no_grad():
            kl = approx_kl(log_prob, old_log_prob)
            clip_fraction = ((ratio - 1.0).abs() > clip).float().mean()
        return {
            "loss": loss,
            "policy_loss": policy_loss.detach(),
            "value_loss": v_loss.detach(),
            "entropy": entropy.detach().mean(),
            "approx_kl": kl,
            "clip_fraction": clip_fraction,
        }

    def _update(self, data: dict[str, torch.Tensor]) -> dict[str, float]:
        """The epochs (`_epochs`) at the clip range of the schedule.

        Returns:
            Means over the minibatch updates of ``policy_loss``, ``value_loss``, ``entropy``,
            ``approx_kl`` and ``clip_fraction``; ``clip_range`` and ``n_updates``.
        """
        clip = self._clip_range()
        stats = self._epochs(data, clip)
        return {
            **{k: float(np.mean(v)) for k, v in stats.items()},
            "clip_range": clip,
            "n_updates": float(len(stats["policy_loss"])),
        }

    def _epochs(self, data: dict[str, torch.Tensor], clip: float) -> dict[str, list[float]]:
        """``n_epochs`` passes of shuffled minibatches, stopping when the approximate KL of a minibatch
        exceeds ``1.5 * target_kl`` (before its step)."""
        c = self.config
        stats: dict[str, list[float]] = {k: [] for k in _STATS}
        for _ in range(c.n_epochs):
            for out in self._epoch(data, clip):
                if c.target_kl is not None and float(out["approx_kl"]) > 1.5 * c.target_kl:
                    return stats if stats["policy_loss"] else {k: [float(out[k])] for k in stats}
                self.parts.model.step(out["loss"], c.max_grad_norm)
                for k in stats:
                    stats[k].append(float(out[k]))
        return stats

    def _epoch(self, data: dict[str, torch.Tensor], clip: float) -> Iterator[dict[str, torch.Tensor]]:
        """One pass over the rollout: each shuffled minibatch's `_minibatch`, computed when its turn
        comes (after the previous minibatch's step)."""
        c, n = self.config, len(data["obs"])
        # One minibatch of the whole rollout needs no shuffle: its gradient is the same in any order.
        order = torch.randperm(n, generator=self.generator, device=self.device) if c.batch_size < n else None
        for start in range(0, n, c.batch_size):
            yield self._minibatch(data, None if order is None else order[start : start + c.batch_size], clip)
