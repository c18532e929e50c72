"""Your own value-based agent: QR-DQN (Dabney et al., 2017) on CartPole-v1, on `ValueBasedAgent`.

The base holds the network with its target and optimiser, the explorer, acting, the opt step, the target
updates, prioritized replay and the checkpoint files; the agent builds its network and writes the values
it acts on and its loss. Saved as ``custom_value_agent.py`` in your folder:

    python custom_value_agent.py --train    # into runs/qrdqn/CartPole-v1/seed0
    python custom_value_agent.py --eval
"""

from __future__ import annotations

import sys

import attrs
import torch
from torch import nn

from border_py import GymEnvConfig, SimpleReplayBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import EpsilonGreedyConfig, ValueBasedAgent, quantile_huber_loss, quantile_target
from border_py.agents.greedy import MlpParts, f32, linear_layers
from border_py.agents.parts import seeded
from border_py.agents.toolkit import mlp
from border_py.base import Spaces
from border_py.replay_buffer import TransitionBatch
from border_py.run import Experiment, run_cli


@attrs.frozen(kw_only=True)
class QrDqnConfig:
    """Config of `QrDqn`: the quantiles, and the fields `ValueBasedAgent` reads (`ValueBasedConfig`)."""

    n_quantiles: int = 16
    hidden: tuple[int, ...] = (64, 64)
    lr: float = 1e-3
    adam_eps: float = 1e-8
    batch_size: int = 64
    tau: float = 1.0
    target_update_interval: int = 100
    max_grad_norm: float | None = 10.0
    explorer: EpsilonGreedyConfig = EpsilonGreedyConfig(eps_final=0.04, final_step=8_000)
    device: str = "cpu"

    def build(self, spaces: Spaces, seed: int) -> QrDqn:
        """The agent, sized by ``spaces``."""
        return QrDqn(self, spaces, seed)


class QrDqn(ValueBasedAgent[QrDqnConfig, nn.Sequential, TransitionBatch]):
    """``n_quantiles`` quantiles of each action's return at the fractions ``(i + 1/2) / n``; the greedy
    action has the largest mean."""

    name = "QR-DQN"

    def __init__(self, config: QrDqnConfig, spaces: Spaces, seed: int) -> None:
        n = config.n_quantiles
        with seeded(seed):
            net = mlp(spaces.obs_dim, n * spaces.need_discrete(self.name), config.hidden)
        super().__init__(config, net, spaces, seed, files=("qr.pt", "qr_tgt.pt"))
        self.taus = (torch.arange(n, device=self.device) + 0.5) / n

    def _quantiles(self, net: nn.Module, obs: torch.Tensor) -> torch.Tensor:
        z: torch.Tensor = net(obs)
        return z.view(len(obs), self.config.n_quantiles, self.n_actions)  # (batch, n, actions)

    def _of_action(self, z: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        return z.gather(2, act.long().view(-1, 1, 1).expand(-1, z.shape[1], 1)).squeeze(2)

    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        return self._quantiles(self.parts.net.net, obs).mean(dim=1)

    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b, net = batch, self.parts.net
        pred = self._of_action(self._quantiles(net.net, b.obs), b.act)  # (batch, n)
        with torch.no_grad():
            z_next = self._quantiles(net.target, b.next_obs)
            next_z = self._of_action(z_next, z_next.mean(dim=1).argmax(dim=1))
            target = quantile_target(b.reward, b.is_terminated, b.discount, next_z)
        per_item = quantile_huber_loss(pred, self.taus.expand_as(pred), target, 1.0)  # kappa 1
        loss = (per_item * b.weight).mean() if b.weight is not None else per_item.mean()
        return loss, per_item.detach(), pred.detach().mean()

    def greedy_policy(self) -> MlpParts:
        """For export: one MLP, whose last layer's rows are averaged over the quantiles (the mean)."""
        *layers, (weight, bias) = linear_layers(self.parts.net.net)
        n = self.config.n_quantiles
        layers.append((f32(weight.reshape(len(weight), n, -1).mean(1)), f32(bias.reshape(n, -1).mean(0))))
        return MlpParts(
            obs_mean=None, obs_std=None, obs_clip=None, layers=layers, activation="relu", head="argmax"
        )


EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=50_000),
    agent=QrDqnConfig(),
    trainer=TrainerConfig(max_opts=20_000, warmup_period=1_000, eval_interval=2_000, save_interval=5_000),
)
"""Built in Python: mypy checks that the agent learns from the buffer's batches."""

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
