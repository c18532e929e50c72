"""Your own agent: a linear Q-function on CartPole-v1, trained by the same code as the zoo's agents.

An agent is two classes: a frozen attrs config with ``build(spaces, seed)`` (so an experiment can name it
and the run layer can size it from the env) and the agent, which learns from the buffer's batches in
``opt`` and returns a ``Record`` of what it measured. Everything else (the env, the step processor, the
replay buffer, evaluation, checkpoints, resume, the command line) is border_py's. Saved as
``custom_agent.py`` in your folder:

    python custom_agent.py --train       # into runs/linearq/CartPole-v1/seed0
    python custom_agent.py --eval

mypy checks the pairing of the experiment below: ``opt`` takes a ``ReplayBuffer[TransitionBatch]``, which a
``SimpleReplayBufferConfig`` samples; a buffer of other batches is a type error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt
import torch

from border_py import (
    GymEnvConfig,
    NStepStepProcessorConfig,
    Record,
    ReplayBuffer,
    SimpleReplayBufferConfig,
    TrainerConfig,
    TransitionBatch,
)
from border_py.base import Spaces
from border_py.run import Experiment, run_cli


@attrs.frozen(kw_only=True)
class LinearQConfig:
    """Config of `LinearQ`."""

    lr: float = attrs.field(default=0.01, validator=attrs.validators.gt(0.0))
    """Unitless: the learning rate of plain SGD."""
    batch_size: int = attrs.field(default=32, validator=attrs.validators.gt(0))
    """In transitions per opt step."""
    epsilon: float = attrs.field(default=0.1, validator=[attrs.validators.ge(0.0), attrs.validators.le(1.0)])
    """The probability of a random action while training."""

    def build(self, spaces: Spaces, seed: int) -> LinearQ:
        """The agent, sized by ``spaces`` (discrete actions only)."""
        return LinearQ(self, spaces.obs_dim, spaces.need_discrete("LinearQ"), seed)


class LinearQ:
    """Q(s, a) = W s + b, learnt by one-step TD with the transition's own discount (no target network)."""

    def __init__(self, config: LinearQConfig, obs_dim: int, n_actions: int, seed: int) -> None:
        self.config = config
        self.batch_size = config.batch_size
        generator = torch.Generator().manual_seed(seed)
        self.weight = (torch.randn(n_actions, obs_dim, generator=generator) * 0.01).requires_grad_()
        self.bias = torch.zeros(n_actions, requires_grad=True)
        self.rng = np.random.default_rng(seed)
        self._train = True

    def train(self) -> None:
        self._train = True

    def eval(self) -> None:
        self._train = False

    def is_train(self) -> bool:
        return self._train

    def _q(self, obs: torch.Tensor) -> torch.Tensor:
        return obs @ self.weight.T + self.bias

    def sample(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
        if self._train and self.rng.random() < self.config.epsilon:
            return np.array(self.rng.integers(self.weight.shape[0]), np.int64)
        with torch.no_grad():
            return np.array(int(self._q(torch.as_tensor(obs, dtype=torch.float32)).argmax()), np.int64)

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        if len(buffer) < self.batch_size:
            return None  # not an opt step: the trainer counts it as skipped
        batch = buffer.batch(self.batch_size)
        q = self._q(batch.obs).gather(1, batch.act.long().view(-1, 1)).squeeze(1)
        with torch.no_grad():
            # Bootstrap unless the episode terminated (a truncated one still has a future).
            target = (
                batch.reward
                + batch.discount
                * (1.0 - batch.is_terminated.float())
                * self._q(batch.next_obs).max(dim=1).values
            )
        loss = torch.nn.functional.mse_loss(q, target)
        loss.backward()
        with torch.no_grad():
            for param in (self.weight, self.bias):
                assert param.grad is not None
                param -= self.config.lr * param.grad
                param.grad = None
        return Record({"train/loss": float(loss.detach())})

    def save_params(self, path: Path) -> list[Path]:
        torch.save({"weight": self.weight.detach(), "bias": self.bias.detach()}, path / "linear_q.pt")
        return [path / "linear_q.pt"]

    def load_params(self, path: Path) -> None:
        state = torch.load(path / "linear_q.pt", weights_only=True)
        with torch.no_grad():
            self.weight.copy_(state["weight"])
            self.bias.copy_(state["bias"])


EXPERIMENT = Experiment(
    env=GymEnvConfig(name="CartPole-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=10_000),
    agent=LinearQConfig(),
    trainer=TrainerConfig(max_opts=5_000, warmup_period=500, eval_interval=1_000, save_interval=1_000),
)
"""Built in Python: mypy checks that the agent learns from the buffer's batches."""

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
