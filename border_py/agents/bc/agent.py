"""The behaviour cloning agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import nn

from border_py.agents.bc.losses import classification_loss, likelihood_loss, regression_loss
from border_py.agents.greedy import F32, linear_layers
from border_py.agents.offline_base import ObsStats, OfflineAgent
from border_py.agents.policies import GaussianPolicy
from border_py.agents.toolkit import adam, gradient_step, mlp
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.bc.config import BcConfig


class Bc(OfflineAgent):
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
        self.config = config
        obs_dim, n_actions = spaces.obs_dim, spaces.n_actions
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            if n_actions is not None:
                self.policy: nn.Module = mlp(obs_dim, n_actions, config.hidden)
            elif config.policy == "gaussian":
                self.policy = GaussianPolicy(obs_dim, self._act_dim, config.hidden)
            else:
                self.policy = mlp(obs_dim, self._act_dim, config.hidden)
        self.policy.to(self.device)
        self._params: list[torch.Tensor] = list(self.policy.parameters())
        self.optimizer = adam(self._params, config.lr)

    @property
    def _act_dim(self) -> int:
        assert self.scale is not None
        return self.scale.dim

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        if self.scale is None:
            logits: torch.Tensor = self.policy(obs)
            return logits.argmax(-1)
        if isinstance(self.policy, GaussianPolicy):
            unit, _ = self.policy(obs)
        else:
            unit = torch.tanh(self.policy(obs))
        return self.scale.from_unit(unit)

    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        if self.scale is None:
            loss = classification_loss(self.policy(batch.obs), batch.act)
        elif isinstance(self.policy, GaussianPolicy):
            loss = likelihood_loss(self.policy.log_prob(batch.obs, self.scale.to_unit(batch.act)))
        else:
            loss = regression_loss(torch.tanh(self.policy(batch.obs)), self.scale.to_unit(batch.act))
        gradient_step(self.optimizer, loss, self._params, None)
        return {"train/loss": float(loss.detach())}

    def _networks(self) -> dict[str, nn.Module]:
        return {"policy.pt": self.policy}

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        policy = self.policy
        return linear_layers(policy.net if isinstance(policy, GaussianPolicy) else policy)

    def _optimizers(self) -> dict[str, torch.optim.Optimizer]:
        return {"policy": self.optimizer}
