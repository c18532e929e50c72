"""The IQN agent: its quantile network and quantile Huber loss on
`border_py.agents.value_based.ValueBasedAgent`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from border_py.agents.greedy import ArrayNames, GreedyNetwork
from border_py.agents.iqn.losses import (
    greedy_quantiles,
    quantile_huber_loss,
    quantile_target,
    quantiles_of_action,
)
from border_py.agents.iqn.model import IqnNetwork, MeanQuantiles, sample_taus
from border_py.agents.iqn.taus import EvenTaus, FixedTaus, TauSampling
from border_py.agents.parts import seeded
from border_py.agents.value_based import ValueBasedAgent, observation_shape
from border_py.base.spaces import Spaces
from border_py.replay_buffer.transition import TransitionBatch

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.iqn.config import IqnConfig


class Iqn(ValueBasedAgent["IqnConfig", IqnNetwork, TransitionBatch]):
    """Implicit quantile networks (Dabney et al., 2018) for discrete actions.

    Acting is risk-neutral: the greedy action maximises the mean of the quantiles at ``act_taus``. In train
    mode the DQN explorers act on that mean; in eval mode the action is greedy, and deterministic when
    ``act_taus`` is ``even`` or ``fixed`` (the default). ``opt`` regresses the quantiles of the taken action
    at ``pred_taus`` onto ``r + discount * Z_target(s', a*)`` at ``target_taus`` with the quantile Huber
    loss, where ``a*`` maximises the target network's mean quantile, among the next state's legal actions if
    the env masks actions (its observation's ``action_mask``). Fractions drawn uniformly come from the
    agent's own seeded ``torch.Generator``. With prioritized replay, each item's priority is its loss.

    Args:
        config: hyperparameters.
        spaces: the env's observation shape (an encoder takes it whole) and discrete actions.
        seed: seeds network initialisation, the explorer and fraction sampling.

    Raises:
        TypeError: the actions are not discrete.
        ValueError: ``config.device`` does not exist on this machine.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import IqnConfig
        >>> from border_py.base import Spaces
        >>> agent = Iqn(IqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
        >>> agent.eval(); int(agent.sample(np.zeros(4, np.float32))) in (0, 1)
        True
    """

    name = "IQN"
    takes_masks = True
    generator: torch.Generator
    """Draws the uniformly sampled fractions (saved in ``state.pt``)."""

    def __init__(self, config: IqnConfig, spaces: Spaces, seed: int) -> None:
        n_actions = spaces.need_discrete(self.name, masks=True, images=config.encoder is not None)
        shape = observation_shape(spaces, config.encoder)
        c = config
        with seeded(seed):
            encoder = None if c.encoder is None else c.encoder.build(shape, spaces.obs_parts)
            net = IqnNetwork(
                spaces.obs_dim, n_actions, c.hidden, c.embed_dim, c.n_cos, c.head_hidden, encoder
            )
        super().__init__(
            config,
            net,
            spaces,
            seed,
            files=("iqn.pt", "iqn_tgt.pt"),
            obs_shape=shape,
            images=config.encoder is not None,
        )
        self.generator = torch.Generator(self.device).manual_seed(seed)

    def greedy_policy(self) -> GreedyNetwork:
        """The eval-mode policy for export (the ``iqn`` kind): its state, fraction-embedding and head layers
        and the fixed acting fractions, whose mean quantile the greedy action maximises (among the legal
        actions if the env masks actions); with an encoder (the Nature CNN or a dict observation's images:
        the first module of ``psi``), the encoder first.

        Raises:
            ValueError: it acts on randomly drawn fractions (``act_taus`` uniform: no fixed policy to
                export).
        """
        if not isinstance(self.config.act_taus, EvenTaus | FixedTaus):
            raise ValueError(
                "an IQN policy is exported with deterministic fractions: set act_taus to EvenTaus or "
                f"FixedTaus (it is {self.config.act_taus!r})"
            )
        taus = sample_taus(self.config.act_taus, 1, self.generator, self.device)[0].cpu()
        names, n = ArrayNames(), self.parts.net.net
        encoder = None if self.config.encoder is None else n.psi[0]
        network = {
            # Past the encoder: a multi-input encoder's image layers are its own, not psi's.
            "psi": names.add("psi", n.psi if encoder is None else n.psi[1:]),
            "phi": names.add("phi", n.phi),
            "head": names.add("head", n.head),
            "taus": taus.tolist(),
        }
        return self._argmax_network("iqn", network, names, MeanQuantiles(n, taus.to(self.device)), encoder)

    def _taus(self, sampling: TauSampling, batch: int) -> torch.Tensor:
        return sample_taus(sampling, batch, self.generator, self.device)

    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        q: torch.Tensor = self.parts.net.net(obs, self._taus(self.config.act_taus, len(obs))).mean(dim=1)
        return q

    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        c, b, net = self.config, batch, self.parts.net
        n = len(b)
        taus = self._taus(c.pred_taus, n)
        pred = quantiles_of_action(net.net(b.obs, taus), b.act)  # (batch, N)
        with torch.no_grad():
            z_next = net.target(b.next_obs, self._taus(c.target_taus, n))  # (batch, N', actions)
            next_quantiles = greedy_quantiles(z_next, self._legal(b.next_obs))
            target = quantile_target(b.reward, b.is_terminated, b.discount, next_quantiles)
        per_item = quantile_huber_loss(pred, taus, target, c.kappa)
        loss = (per_item * b.weight).mean() if b.weight is not None else per_item.mean()
        return loss, per_item.detach(), pred.detach().mean()
