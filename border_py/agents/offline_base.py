"""``OfflineAgent``: what the offline agents (BC, AWAC, IQL, CQL, TD3+BC) share. Observations normalised
with a dataset's statistics (a `Saved` part, ``normalizer.pt``), continuous actions as unit actions in the
env's bounds, acting, and the opt step around an update; the checkpoint files come from the agent's parts
(`border_py.agents.torch_agent.TorchAgent`), with the optimisers' states under ``optimizers`` in
``state.pt``.

A subclass declares its parts in a frozen record that has a ``normalizer`` (`OfflineAgent._normalizer` makes
it), acts on normalised observations (``_policy_act``) and learns from a batch whose observations are
already normalised (``_update``). With the config's ``encoder`` (a dict observation with images), each
network that takes observations builds its own (`OfflineAgent._encoder`, in the ``seeded`` block, as the
online actor-critics do), and normalisation is off (the config refuses ``normalize_obs`` with it):

    @attrs.frozen
    class MyParts:
        normalizer: Saved[ObsNormalizer]
        policy: Trained[nn.Module]

    class MyAgent(OfflineAgent["MyConfig", MyParts]):
        def __init__(self, config, spaces, seed, obs_stats=None):
            super().__init__("MyAgent", config, spaces, seed, obs_stats)
            with seeded(seed):  # the encoder, if any, then the layers over its features
                layers = lambda n: mlp(n, spaces.n_actions, config.hidden)
                policy = encoded(self._encoder(), spaces.obs_dim, layers)
            self.parts = MyParts(
                normalizer=self._normalizer(obs_stats),
                policy=Trained.adam(policy, "policy.pt", "policy", config.lr, self.device),
            )
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Generic, Protocol, TypeVar

import attrs
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.cnn_config import MultiInputConfig, build_encoder
from border_py.agents.ensemble import CriticEnsemble
from border_py.agents.greedy import F32, MlpParts, f32, linear_layers, with_encoder
from border_py.agents.multi_input import MultiInputEncoder
from border_py.agents.normalization import ObsNormalizer
from border_py.agents.parts import Saved, Tracked, Trained, seeded
from border_py.agents.policies import ActionScale, GaussianPolicy
from border_py.agents.toolkit import torch_device
from border_py.agents.torch_agent import AgentConfig, TorchAgent
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces
from border_py.record import Record
from border_py.replay_buffer.transition import TransitionBatch

__all__ = [
    "ActorCriticParts",
    "GaussianActorCritic",
    "GaussianActorCriticConfig",
    "NormalizedParts",
    "ObsStats",
    "OfflineAgent",
    "OfflineConfig",
]

ObsStats = tuple[npt.NDArray[Any], npt.NDArray[Any]]
"""An observation's mean and standard deviation, per component."""


class OfflineConfig(AgentConfig, Protocol):
    """What every offline agent's config has (the fields of the same names)."""

    @property
    def normalize_obs(self) -> bool: ...
    @property
    def encoder(self) -> MultiInputConfig | None:
        """A dict observation with images: the encoder each network puts in front of its layers."""
        ...


class GaussianActorCriticConfig(OfflineConfig, Protocol):
    """What the configs of `GaussianActorCritic`'s agents (IQL, AWAC) have besides."""

    @property
    def actor_hidden(self) -> tuple[int, ...]: ...
    @property
    def critic_hidden(self) -> tuple[int, ...]: ...
    @property
    def n_critics(self) -> int: ...
    @property
    def actor_lr(self) -> float: ...
    @property
    def critic_lr(self) -> float: ...


class NormalizedParts(Protocol):
    """A parts record with the observation normaliser, ``normalizer``."""

    @property
    def normalizer(self) -> Saved[ObsNormalizer]: ...


@attrs.frozen
class ActorCriticParts:
    """`GaussianActorCritic`'s parts (AWAC's): the observation normaliser, the Gaussian policy, and the
    critics with their Polyak-averaged targets."""

    normalizer: Saved[ObsNormalizer]
    actor: Trained[GaussianPolicy]
    critic: Tracked[CriticEnsemble]


C = TypeVar("C", bound=OfflineConfig)
"""The agent's config."""
P = TypeVar("P", bound=NormalizedParts)
"""The agent's parts record."""
AC = TypeVar("AC", bound=GaussianActorCriticConfig)
"""A `GaussianActorCritic` agent's config."""
AP = TypeVar("AP", bound=ActorCriticParts)
"""A `GaussianActorCritic` agent's parts record."""


class OfflineAgent(TorchAgent[P], Generic[C, P]):
    """The shared half of the offline agents.

    Args:
        name: the agent's name in error messages (``IQL``).
        config: the agent's config (``device``, ``batch_size``, ``encoder`` and ``normalize_obs`` read
            here: normalise observations, in ``sample`` and in ``opt``, with ``obs_stats``; without them,
            with the statistics `load_params` restores: ``opt`` refuses to run before).
        spaces: the env's observation size and actions (a box's bounds map the policy's unit actions); an
            image part only with an ``encoder``.
        seed: seeds the agent's generator (all its sampling; the subclass seeds its networks with
            `seeded`).
        obs_stats: the dataset's observation mean and std, used when ``normalize_obs``.

    Attributes:
        config: the config.
        obs_dim: the observation size.
        obs_parts: a dict observation's parts (what an ``encoder`` reads), else ``None``.
        scale: the map between the box's actions and unit actions (``None`` for discrete actions).
        box_only: a class's flag: its agents act only in a box of actions.

    Raises:
        TypeError: discrete actions and ``box_only``, an env that masks actions, or an image part without
            an ``encoder``; the message names the agent.
        ValueError: a device this machine lacks.
    """

    generator: torch.Generator
    optimizers_key = "optimizers"
    box_only = False

    def __init__(self, name: str, config: C, spaces: Spaces, seed: int, obs_stats: ObsStats | None) -> None:
        images = config.encoder is not None
        if self.box_only:
            spaces.need_box(name, images=images)
        elif spaces.discrete:
            spaces.need_discrete(name, images=images)  # refuses an env that masks actions
        else:
            spaces.need_images(name, images)
        self.name = name
        self.config = config
        self.obs_dim, self.obs_parts = spaces.obs_dim, spaces.obs_parts
        self.device = torch_device(config.device)
        # Without statistics, normalize_obs waits for load_params (an evaluation restores them from the
        # saved model); training refuses to start without them.
        self._stats_missing = config.normalize_obs and obs_stats is None
        self.scale = None if spaces.discrete else ActionScale(*spaces.action_bounds, self.device)
        self.generator = torch.Generator(self.device).manual_seed(seed)

    def _normalizer(self, obs_stats: ObsStats | None) -> Saved[ObsNormalizer]:
        """The observation normaliser part, saved to ``normalizer.pt``: ``obs_stats`` with
        ``normalize_obs``, else the identity (until `load_params` restores saved statistics)."""
        stats = obs_stats if self.config.normalize_obs else None
        return Saved.on(ObsNormalizer(self.obs_dim, *(stats or (None, None))), "normalizer.pt", self.device)

    def _encoder(self) -> MultiInputEncoder | None:
        """A fresh encoder of the env's dict observation with images, as the config asks (``None``:
        none); each network that takes observations builds its own, in the agent's ``seeded`` block."""
        return build_encoder(self.config.encoder, self.obs_dim, self.obs_parts)

    @property
    def batch_size(self) -> int:
        """In transitions per opt step."""
        return self.config.batch_size

    @property
    def _box(self) -> ActionScale:
        """The action scale of an agent whose actions are a box (its constructor checked them)."""
        assert self.scale is not None
        return self.scale

    @abstractmethod
    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        """Env actions for normalised observations ``(n, obs_dim)``: drawn in train mode, the policy's
        mode in eval mode."""

    @abstractmethod
    def _update(self, batch: TransitionBatch) -> dict[str, float]:
        """One update on ``batch`` (its observations normalised); returns the ``train/...`` values."""

    @abstractmethod
    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        """The linear layers the greedy action comes from (a Gaussian policy's: its mean's)."""

    def _greedy_encoder(self) -> nn.Module | None:
        """The encoder in front of `_greedy_layers` (the policy's own), ``None`` without one. An agent of
        one's own that takes an ``encoder`` overrides it; without, its export would drop the encoder.

        Raises:
            NotImplementedError: the config has an encoder and the agent does not say where it is.
        """
        if self.config.encoder is not None:
            raise NotImplementedError(
                f"{type(self).__name__}: its config has an encoder but the agent does not name it for "
                "export: override _greedy_encoder"
            )
        return None

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: the observation normalised with the dataset's statistics (the
        identity without them) or through the policy's encoder, the policy's MLP, then the argmax (discrete
        actions) or ``bias + scale * tanh(out)`` within the box."""
        scale, normalizer, encoder = self.scale, self.parts.normalizer.net, self._greedy_encoder()
        # With an encoder the normaliser is the identity (the config refuses normalize_obs): left out.
        plain = encoder is None
        policy = MlpParts(
            obs_mean=f32(normalizer.mean.cpu().numpy()) if plain else None,
            obs_std=f32(normalizer.std.cpu().numpy()) if plain else None,
            obs_clip=None,
            layers=self._greedy_layers(),
            activation="relu",
            head="argmax" if scale is None else "tanh_box",
            low=None if scale is None else f32(scale.low),
            high=None if scale is None else f32(scale.high),
        )
        return with_encoder(policy, encoder, (self.obs_dim,))

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
        """The actions for ``n`` observations, normalised first (float32 within the bounds, or int64)."""
        with torch.inference_mode():
            x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).reshape(n, -1)
            out: npt.NDArray[Any] = self._policy_act(self.parts.normalizer.net(x)).cpu().numpy()
        return out

    def opt(self, buffer: ReplayBuffer[TransitionBatch]) -> Record | None:
        """One update on a sampled batch; ``None`` while the buffer holds fewer than ``batch_size``."""
        if self._stats_missing:
            raise ValueError(
                f"{self.name}: normalize_obs needs the dataset's observation statistics (obs_stats)"
            )
        if len(buffer) < self.config.batch_size:
            return None
        normalize = self.parts.normalizer.net
        batch = buffer.batch(self.config.batch_size).to(self.device)
        batch = attrs.evolve(batch, obs=normalize(batch.obs), next_obs=normalize(batch.next_obs))
        record = self._update(batch)
        self.opt_steps += 1
        return Record(record)

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self._stats_missing = False  # the saved statistics came with the networks


class GaussianActorCritic(OfflineAgent[AC, AP]):
    """AWAC's and IQL's shared half: a `GaussianPolicy` actor over unit actions, ``n_critics`` Q-networks
    and their Polyak-averaged targets, with an Adam each for the actor and the critics (`_actor_critic`
    makes those parts; the subclass declares its record, `ActorCriticParts` or one extending it). In train
    mode it acts by sampling (online fine-tuning explores), in eval mode with the mean.

    Args:
        name, spaces, seed, obs_stats: as `OfflineAgent` (the actions a box).
        config: as `OfflineAgent`'s, with the actor's and each critic's hidden layers, the number of
            critics (their minimum is used) and the actor's and critics' Adam learning rates.

    Raises:
        TypeError: the actions are not a box.
    """

    box_only = True

    def _actor_critic(self, seed: int) -> tuple[Trained[GaussianPolicy], Tracked[CriticEnsemble]]:
        """The actor (``actor.pt``, optimiser ``actor``) and the critics (``critic.pt``, their targets
        ``critic_tgt.pt``, optimiser ``critic``), initialised from ``seed``."""
        c, device = self.config, self.device
        obs_dim, act_dim = self.obs_dim, self._box.dim
        with seeded(seed):  # each with its own encoder, if any (the critics of the ensemble share one)
            actor = GaussianPolicy(obs_dim, act_dim, c.actor_hidden, encoder=self._encoder())
            critic = CriticEnsemble(obs_dim, act_dim, c.critic_hidden, c.n_critics, encoder=self._encoder())
        return (
            Trained.adam(actor, "actor.pt", "actor", c.actor_lr, device),
            Tracked.adam_with_target(critic, "critic.pt", "critic", c.critic_lr, device, "critic_tgt.pt"),
        )

    def _policy_act(self, obs: torch.Tensor) -> torch.Tensor:
        actor = self.parts.actor.net
        unit = actor.sample(obs, self.generator) if self._train else actor(obs)[0]
        return self._box.from_unit(unit)

    def _unit(self, act: torch.Tensor) -> torch.Tensor:
        """Env actions to the unit actions the critics and the actor work on."""
        return self._box.to_unit(act)

    def _critic_step(
        self, obs: torch.Tensor, unit_act: torch.Tensor, target: torch.Tensor
    ) -> tuple[float, torch.Tensor]:
        """One step of every critic towards ``target``; returns the loss and the critics' values
        ``Q_i(obs, unit_act)`` before the step, ``(n, batch)``, detached."""
        critic = self.parts.critic
        q = critic.net(obs, unit_act)
        loss = ((q - target) ** 2).mean(dim=1).sum()
        critic.step(loss)
        return float(loss.detach()), q.detach()

    def _actor_step(self, obs: torch.Tensor, unit_act: torch.Tensor, weight: torch.Tensor) -> float:
        """One step of advantage-weighted regression: ``-mean(weight * log pi(a|s))``; returns the loss."""
        actor = self.parts.actor
        loss = -(weight * actor.net.log_prob(obs, unit_act)).mean()
        actor.step(loss)
        return float(loss.detach())

    def _greedy_layers(self) -> list[tuple[F32, F32]]:
        return linear_layers(self.parts.actor.net.net)

    def _greedy_encoder(self) -> nn.Module | None:
        return self.parts.actor.net.encoder
