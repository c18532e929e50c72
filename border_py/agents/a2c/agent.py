"""The A2C agent: one gradient step on the whole rollout, on the on-policy base."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch

from border_py.agents.a2c.losses import policy_gradient_loss
from border_py.agents.on_policy.agent import OnPolicyAgent
from border_py.agents.on_policy.model import ActorCritic
from border_py.agents.parts import Trained
from border_py.agents.ppo.losses import value_loss

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.a2c.config import A2cConfig


class A2c(OnPolicyAgent["A2cConfig"]):
    """Advantage actor-critic (Mnih et al., 2016, "Asynchronous methods for deep reinforcement
    learning"), in its synchronous form over a vector env, as Stable-Baselines3's ``A2C``.

    Acting, the rollout's advantages and returns (GAE; with A2C's lambda of 1 the n-step return over the
    rollout, bootstrapped from the value at its end and at truncations), normalisation and gSDE are
    `OnPolicyAgent`'s. The update is one gradient step on the whole rollout: the policy gradient weighted
    by the advantages, the squared error of the values to the returns, and the entropy bonus, with the
    gradients clipped to ``max_grad_norm``. The network is saved to ``a2c.pt`` and its optimiser (RMSprop
    by default) under ``optimizer``.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its actions: discrete, or a box (whose bounds the env
            clips the actions to, as SB3 does).
        seed: seeds network initialisation and all sampling.

    Raises:
        ValueError: gSDE with discrete actions, or a device this machine does not have.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import A2cConfig
        >>> from border_py.base import Spaces
        >>> agent = A2c(A2cConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    name = "A2C"
    config: A2cConfig

    def _trained(self, model: ActorCritic) -> Trained[ActorCritic]:
        c = self.config

        def make(params: Sequence[torch.Tensor]) -> torch.optim.Optimizer:
            if c.optimizer == "adam":
                return torch.optim.Adam(params, lr=c.lr, eps=c.optimizer_eps)
            return torch.optim.RMSprop(params, lr=c.lr, alpha=c.rmsprop_alpha, eps=c.optimizer_eps)

        return Trained.of(model, "a2c.pt", "optimizer", self.device, make)

    @property
    def batch_size(self) -> int:
        """In transitions: one (the update takes the whole rollout)."""
        return self.config.batch_size

    def _update(self, data: dict[str, torch.Tensor]) -> dict[str, float]:
        """One step on the rollout's loss ``policy_loss - ent_coef * entropy + vf_coef * value_loss``.

        Returns:
            ``policy_loss``, ``value_loss``, ``entropy`` (the mean over the rollout) and ``grad_norm``
            (the gradients' global norm before clipping).
        """
        c = self.config
        latent, out, value = self.parts.model.net(data["obs"])
        log_prob, entropy = self._log_prob_entropy(latent, out, data["act"], data.get("legal"))
        policy_loss = policy_gradient_loss(log_prob, self._normalized(data["advantage"]))
        v_loss = value_loss(value, data["old_value"], data["returns"], clip=None)
        loss = policy_loss - c.ent_coef * entropy.mean() + c.vf_coef * v_loss
        grad_norm = self.parts.model.step_with_norm(loss, c.max_grad_norm)
        return {
            "policy_loss": float(policy_loss.detach()),
            "value_loss": float(v_loss.detach()),
            "entropy": float(entropy.detach().mean()),
            "grad_norm": grad_norm,
        }
