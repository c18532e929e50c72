"""``ActorCriticAgent``: what the off-policy agents for a box of actions share (SAC and TD3, and the base for
one's own): the box, the agent's generator, several updates per opt step with their records averaged, the
policy's weights for asynchronous actors, and the policy's export.

A subclass declares its parts (a record with at least an ``actor``: `border_py.agents.parts`), acts
(``_act``) and writes one update (``_update``):

    class MyAgent(ActorCriticAgent[MyConfig, MyParts, TransitionBatch]):
        name = "MyAgent"

        def __init__(self, config, spaces, seed):
            super().__init__(config, spaces, seed)
            with seeded(seed):
                actor, critic = ..., ...
            self.parts = MyParts(actor=Trained.adam(...), critic=Tracked.adam_with_target(...))

        def _act(self, obs, n): ...
        def _update(self, buffer): ...   # one batch, one update: returns its train/... values
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import torch

from border_py.agents.cnn_config import MultiInputConfig, build_encoder
from border_py.agents.greedy import F32, MlpParts
from border_py.agents.lr_schedule import linear_horizon, set_scheduled_lrs
from border_py.agents.multi_input import MultiInputEncoder
from border_py.agents.parts import Trained
from border_py.agents.toolkit import load_state_arrays, state_arrays, torch_device
from border_py.agents.torch_agent import AgentConfig, TorchAgent
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record

__all__ = ["ActorCriticAgent", "ActorCriticConfig", "ActorParts"]


class ActorCriticConfig(AgentConfig, Protocol):
    """The fields of an actor-critic agent's config the shared code reads."""

    @property
    def n_updates_per_opt(self) -> int:
        """Updates per opt step, each on its own batch."""
        ...

    @property
    def encoder(self) -> MultiInputConfig | None:
        """A dict observation with images: the encoder each network puts in front of its layers."""
        ...


class ActorParts(Protocol):
    """A parts record with a trained policy network, ``actor``."""

    @property
    def actor(self) -> Trained[Any]: ...


C = TypeVar("C", bound=ActorCriticConfig)
"""The agent's config."""
P = TypeVar("P", bound=ActorParts)
"""The agent's parts record."""
B = TypeVar("B")
"""The batch the agent learns from."""


class ActorCriticAgent(TorchAgent[P], Generic[C, P, B]):
    """The shared half of an off-policy agent for a box of actions.

    ``opt`` makes ``n_updates_per_opt`` updates, each on its own batch, and returns the mean of each value
    over the updates that reported it; it skips (``None``) while the buffer holds fewer than a batch.

    Args:
        config: the agent's config (``device``, ``batch_size``, ``n_updates_per_opt`` read here).
        spaces: the env's observation size and its box of actions (the subclass's ``name`` in the error
            for other actions).
        seed: seeds the agent's generator (the subclass seeds its networks with `seeded`).

    Attributes:
        config: the config.
        obs_dim: the observation size.
        act_dim: the action size.
        action_low: the box's lower bounds (float32).
        action_high: the box's upper bounds (float32).
        lr_horizon: in opt steps, where the config's linear ``lr_schedule`` reaches 0 (it moves the
            optimisers ``_scheduled_lrs`` names); ``None``: the rates stay as configured.

    Raises:
        TypeError: the actions are not a box.
        ValueError: ``config.device`` does not exist here.
    """

    generator: torch.Generator

    def __init__(self, config: C, spaces: Spaces, seed: int) -> None:
        low, high = spaces.need_box(self.name, images=config.encoder is not None)
        self.config = config
        self.obs_dim, self.act_dim = spaces.obs_dim, int(low.shape[0])
        self.obs_parts = spaces.obs_parts
        self.action_low, self.action_high = low, high
        self.device = torch_device(config.device)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.lr_horizon = linear_horizon(config)

    def _encoder(self) -> MultiInputEncoder | None:
        """A fresh encoder of the env's dict observation with images, as the config asks (``None``:
        none); each network that takes observations builds its own, in the agent's ``seeded`` block."""
        return build_encoder(self.config.encoder, self.obs_dim, self.obs_parts)

    @property
    def batch_size(self) -> int:
        """In transitions per update."""
        return self.config.batch_size

    @abstractmethod
    def _update(self, buffer: ReplayBuffer[B]) -> dict[str, float]:
        """One update on a batch the update samples from ``buffer``; returns its ``train/...`` values."""

    def _scheduled_lrs(self) -> Sequence[tuple[torch.optim.Optimizer, float]]:
        """The optimisers a linear learning-rate schedule moves, each with its configured rate (SAC's: the
        policy's, the critics' and alpha's); none here, and a linear schedule in the config is then refused
        at the first opt step rather than ignored."""
        return ()

    def opt(self, buffer: ReplayBuffer[B]) -> Record | None:
        """``n_updates_per_opt`` updates, each on its own batch, at the rates of a linear schedule's opt
        step ``opt_steps`` (if the config has one); ``None`` while the buffer is smaller than a batch.

        Returns:
            The mean of each ``train/...`` value over the updates that reported it.
        """
        if len(buffer) < self.config.batch_size:
            return None
        if self.lr_horizon is not None:  # once per opt step, as SB3 sets its rates once per train() call
            rates = self._scheduled_lrs()
            if not rates:  # an agent of one's own on this base, whose config has the schedule's fields
                raise NotImplementedError(
                    f"{type(self).__name__}: its config asks for a linear lr_schedule but the agent names no "
                    "optimiser for it: override _scheduled_lrs"
                )
            set_scheduled_lrs(self.lr_horizon, self.opt_steps, rates)
        records = [self._update(buffer) for _ in range(self.config.n_updates_per_opt)]
        self.opt_steps += 1
        keys = dict.fromkeys(k for r in records for k in r)
        return Record({k: float(np.mean([r[k] for r in records if k in r])) for k in keys})

    def _uniform_actions(self, n: int) -> torch.Tensor:
        """``(n, act_dim)`` actions uniform in the box, from the agent's generator: SB3's acting before
        ``learning_starts``, so the warm-up fills the buffer with varied actions."""
        uniform = torch.rand((n, self.act_dim), generator=self.generator, device=self.device)
        low = torch.as_tensor(self.action_low, device=self.device)
        high = torch.as_tensor(self.action_high, device=self.device)
        return low + (high - low) * uniform

    def acting_state(self) -> dict[str, Any]:
        """The policy network's weights as numpy arrays (`SyncModel`)."""
        return {"actor": state_arrays(self.parts.actor.net)}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state`'s weights into the policy network."""
        load_state_arrays(self.parts.actor.net, state["actor"], self.name)

    def _tanh_box_policy(self, layers: list[tuple[F32, F32]]) -> MlpParts:
        """The greedy policy ``bias + scale * tanh(mlp(obs))`` within the box, from the MLP's layers."""
        return MlpParts(
            obs_mean=None,
            obs_std=None,
            obs_clip=None,
            layers=layers,
            activation="relu",
            head="tanh_box",
            low=self.action_low,
            high=self.action_high,
        )
