"""The behaviour cloning agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import torch
from torch import nn

from border_py.agents.bc.losses import classification_loss, likelihood_loss, regression_loss
from border_py.agents.greedy import F32, linear_layers
from border_py.agents.multi_input import Encoded, encoded
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.parts import Saved, Trained, seeded
from border_py.agents.policies import GaussianPolicy
from border_py.agents.toolkit import mlp
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.bc.config import BcConfig


@attrs.frozen
class BcParts:
    """BC's parts: the observation normaliser and the policy (an MLP, or a `GaussianPolicy`; with an
    encoder, an `Encoded` MLP or a `GaussianPolicy` holding it)."""

    normalizer: Saved[ObsNormalizer]
    policy: Trained[nn.Module]


class Bc(OfflineAgent["BcConfig", BcParts]):
    """Behaviour cloning: fits the dataset's actions. Discrete actions by cross-entropy (acting with the
    argmax); continuous ones by regression of the unit action (``deterministic``, ``tanh`` output) or by
    the log-likelihood of a Gaussian (acting with its mean). It acts the same way in train and eval mode.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its actions, discrete or a box.
        seed: seeds network initialisation and sampling.
        obs_stats: the dataset's observation mean and std (``normalize_obs``).

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import BcConfig
        >>> from border_py.base import Spaces
        >>> agent = Bc(BcConfig(), Spaces(obs_shape=(3,), action_low=[-2.0], action_high=[2.0]), seed=0)
        >>> float(abs(agent.sample(np.zeros(3, np.float32))[0])) <= 2.0
        True
    """

    def __init__(
        self, config: BcConfig, spaces: Spaces, seed: int, obs_stats: ObsStats | None = None
    ) -> None:
        super().__init__("BC", config, spaces, seed, obs_stats)
        obs_dim, n_actions = spaces.obs_dim, spaces.n_actions
        with seeded(seed):  # the encoder, if any, first
            policy: nn.Module
            if n_actions is None and config.policy == "gaussian":
                policy = GaussianPolicy(obs_dim, self._box.dim, config.hidden, encoder=self._encoder())
            else:
                out = self._box.dim if n_actions is None else n_actions
                policy = encoded(self._encoder(), obs_dim, lambda n: mlp(n, out, config.hidden))
        self.parts = BcParts(
            normalizer=self._normalizer(obs_stats),
            policy=Trained.adam(policy, "policy.pt", "policy", config.lr, self.device),
        )

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        policy = self.parts.policy.net
        if self.scale is None:
            logits: torch.Tensor = policy(obs)
            return logits.argmax(-1)
        if isinstance(policy, GaussianPolicy):
            unit, _ = policy(obs)
        else:
            unit = torch.tanh(policy(obs))
        return self.scale.from_unit(unit)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        policy = self.parts.policy.net
        if self.scale is None:
            loss = classification_loss(policy(batch.obs), batch.act)
        elif isinstance(policy, GaussianPolicy):
            loss = likelihood_loss(policy.log_prob(batch.obs, self.scale.to_unit(batch.act)))
        else:
            loss = regression_loss(torch.tanh(policy(batch.obs)), self.scale.to_unit(batch.act))
        self.parts.policy.step(loss)
        return {"train/loss": float(loss.detach())}

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        policy = self.parts.policy.net
        return linear_layers(policy.net if isinstance(policy, GaussianPolicy | Encoded) else policy)

    def _greedy_encoder(self) -> nn.Module | None:
        policy = self.parts.policy.net
        return policy.encoder if isinstance(policy, GaussianPolicy | Encoded) else None
