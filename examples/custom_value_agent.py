"""Your own value-based agent: Munchausen DQN (Vieillard et al., 2020) on CartPole-v1, on `ValueBasedAgent`.

M-DQN learns Q-values toward a soft target: the reward, plus ``alpha`` times the agent's own scaled
log-policy of the action taken, ``tau * log pi(a|s)`` clipped below at ``l0``, plus the discounted soft
value of the next state, ``sum_a pi(a|s') (q(s', a) - tau * log pi(a|s'))``; ``q`` is the target network
and ``pi = softmax(q / tau)``.

The base holds the network with its target and optimiser, the explorer, acting, the opt step, the target
updates, prioritized replay and the checkpoint files; the agent builds its network and writes the values
it acts on and its loss. Saved as ``custom_value_agent.py`` in your folder:

    python custom_value_agent.py --train    # into runs/munchausendqn/CartPole-v1/seed0
    python custom_value_agent.py --eval
"""

from __future__ import annotations

import sys

import attrs
import torch
from torch import nn
from torch.nn import functional

from border_py import GymEnvConfig, SimpleReplayBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import EpsilonGreedyConfig, ValueBasedAgent
from border_py.agents.greedy import MlpParts, linear_layers
from border_py.agents.parts import seeded
from border_py.agents.toolkit import mlp
from border_py.base import Spaces
from border_py.replay_buffer import TransitionBatch
from border_py.run import Experiment, run_cli


@attrs.frozen(kw_only=True)
class MunchausenDqnConfig:
    """Config of `MunchausenDqn`: the entropy temperature ``tau``, the Munchausen scale ``alpha`` and clip
    ``l0``, and the fields `ValueBasedAgent` reads (`ValueBasedConfig`)."""

    entropy_tau: float = 0.03
    alpha: float = 0.9
    log_pi_clip: float = -1.0
    hidden: tuple[int, ...] = (64, 64)
    lr: float = 5e-4  # on CartPole, seeds 0-4: 1e-3 reached 500 on one seed, 5e-4 on three
    adam_eps: float = 1e-8
    batch_size: int = 64
    tau: float = 1.0
    target_update_interval: int = 100
    max_grad_norm: float | None = 10.0
    explorer: EpsilonGreedyConfig = EpsilonGreedyConfig(eps_final=0.04, final_step=8_000)
    device: str = "cpu"

    def build(self, spaces: Spaces, seed: int) -> MunchausenDqn:
        """The agent, sized by ``spaces``."""
        return MunchausenDqn(self, spaces, seed)


class MunchausenDqn(ValueBasedAgent[MunchausenDqnConfig, nn.Sequential, TransitionBatch]):
    """Each action's Q-value from a ReLU MLP, learnt toward the Munchausen target; the greedy action has
    the largest Q-value."""

    name = "M-DQN"

    def __init__(self, config: MunchausenDqnConfig, spaces: Spaces, seed: int) -> None:
        with seeded(seed):
            net = mlp(spaces.obs_dim, spaces.need_discrete(self.name), config.hidden)
        super().__init__(config, net, spaces, seed, files=("mdqn.pt", "mdqn_tgt.pt"))

    def _tau_log_pi(self, q: torch.Tensor) -> torch.Tensor:
        # log_softmax, not log(softmax): q / tau is large (tau 0.03), so a probability rounds to 0 (log -inf).
        return self.config.entropy_tau * functional.log_softmax(q / self.config.entropy_tau, dim=1)

    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        q: torch.Tensor = self.parts.net.net(obs)
        return q

    def _loss(self, batch: TransitionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        c, b, net = self.config, batch, self.parts.net
        act = b.act.long().view(-1, 1)
        q_taken = net.net(b.obs).gather(1, act).squeeze(1)
        with torch.no_grad():
            tau_log_pi_taken = self._tau_log_pi(net.target(b.obs)).gather(1, act).squeeze(1)
            bonus = c.alpha * tau_log_pi_taken.clamp(min=c.log_pi_clip)
            q_next = net.target(b.next_obs)
            tau_log_pi_next = self._tau_log_pi(q_next)
            soft_v = ((tau_log_pi_next / c.entropy_tau).exp() * (q_next - tau_log_pi_next)).sum(dim=1)
            target = b.reward + bonus + b.discount * (1.0 - b.is_terminated) * soft_v
        per_item = functional.smooth_l1_loss(q_taken, target, reduction="none")
        loss = (per_item * b.weight).mean() if b.weight is not None else per_item.mean()
        return loss, (target - q_taken.detach()).abs(), q_taken.detach().mean()

    def greedy_policy(self) -> MlpParts:
        """For export: the Q-network as one MLP, and the argmax of its outputs."""
        layers = linear_layers(self.parts.net.net)
        return MlpParts(
            obs_mean=None, obs_std=None, obs_clip=None, layers=layers, activation="relu", head="argmax"
        )


EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=50_000),
    agent=MunchausenDqnConfig(),
    trainer=TrainerConfig(max_opts=20_000, warmup_period=1_000, eval_interval=2_000, save_interval=5_000),
)
"""Built in Python: mypy checks that the agent learns from the buffer's batches."""

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
