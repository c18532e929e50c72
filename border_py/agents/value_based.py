"""``ValueBasedAgent``: the base of a value-based agent (DQN, IQN, your own). A network with its target,
Adam, an explorer, acting on per-action values, the opt step around the loss, and the checkpoint files.

A subclass builds its network (seeded) and hands it to ``__init__``, then writes two methods: the
per-action values the greedy action maximises (``_action_values``) and the loss of a batch (``_loss``).
The base declares the network as its one part (`ValueParts`: the network trained by Adam and its target),
so saving, loading, the optimiser's step and the target's update are derived from it:

    class MyDqn(ValueBasedAgent[MyConfig, MyNet, TransitionBatch]):
        name = "MyDQN"

        def __init__(self, config: MyConfig, spaces: Spaces, seed: int) -> None:
            with seeded(seed):
                net = MyNet(spaces.obs_dim, spaces.need_discrete(self.name))
            super().__init__(config, net, spaces, seed)

        def _action_values(self, obs):  # (n, *obs_shape) -> (n, n_actions)
            return self.parts.net.net(obs)

        def _loss(self, batch):  # -> (loss, each item's new priority, mean predicted value)
            q = self.parts.net.net(batch.obs) ...
            with torch.no_grad():
                target = ... self.parts.net.target(batch.next_obs) ...

The agent is generic in its config ``C`` (a `ValueBasedConfig`: the fields the base reads), its network
``N`` and the batch ``B`` it learns from (a `ValueBatch`: what ``opt`` reads of it, such as
`border_py.TransitionBatch`), so mypy checks ``_loss``'s fields and an experiment's buffer against it; the
run layer checks the same pairing for an experiment read from YAML.
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

import attrs
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from border_py.agents.explorers import (
    EpsilonGreedy,
    EpsilonGreedyConfig,
    QValues,
    SoftmaxConfig,
    build_explorer,
    discrete_action,
    discrete_actions,
    explorer_record,
    legal_actions,
    masked_values,
)
from border_py.agents.greedy import (
    F32,
    ArgmaxGreedy,
    ArrayNames,
    GreedyNetwork,
    MlpParts,
    mask_span,
    with_encoder,
)
from border_py.agents.lr_schedule import linear_horizon, set_scheduled_lrs
from border_py.agents.parts import Tracked
from border_py.agents.toolkit import NumpyMlp, load_state_arrays, state_arrays, torch_device
from border_py.agents.torch_agent import AgentConfig, TorchAgent
from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.spaces import Spaces, legal_flags
from border_py.record import Record

__all__ = ["ValueBasedAgent", "ValueBasedConfig", "ValueBatch", "ValueParts", "observation_shape"]


def observation_shape(spaces: Spaces, encoder: object | None) -> tuple[int, ...]:
    """The shape the network takes one observation in: the env's (``(4, 84, 84)``) for an ``encoder``,
    else flat (``(obs_dim,)``)."""
    return spaces.obs_shape if encoder is not None else (spaces.obs_dim,)


class ValueBasedConfig(AgentConfig, Protocol):
    """The config fields `ValueBasedAgent` reads (`DqnConfig` and `IqnConfig` have them; a frozen attrs
    config of your own with these fields does too). ``n_updates_per_opt`` (`DeepQConfig`'s) is read where a
    config has it, one update per opt call where not."""

    @property
    def lr(self) -> float:
        """Adam's learning rate."""
        ...

    @property
    def adam_eps(self) -> float:
        """Adam's epsilon."""
        ...

    @property
    def tau(self) -> float:
        """Target update ``target <- tau * online + (1 - tau) * target`` (1.0: a copy)."""
        ...

    @property
    def target_update_interval(self) -> int:
        """In updates (opt steps, times ``n_updates_per_opt`` where the config has it): how often the
        target network is updated."""
        ...

    @property
    def max_grad_norm(self) -> float | None:
        """The gradients' global L2 norm is clipped to it; ``None``: not clipped."""
        ...

    @property
    def explorer(self) -> EpsilonGreedyConfig | SoftmaxConfig:
        """How actions are explored in train mode."""
        ...


class ValueBatch(Protocol):
    """What `ValueBasedAgent.opt` reads of a batch (the agent's ``_loss`` reads the rest of its fields):
    `border_py.TransitionBatch` has it, and so may a batch class of your own.

    `border_py.TransitionBatchLike`'s ``to`` returns the protocol, not the batch it is called on; here it
    returns the batch's own type, so that ``_loss`` gets the class the buffer samples.
    """

    @property
    def weight(self) -> torch.Tensor | None:
        """Importance-sampling weights (prioritized replay); ``None`` for uniform sampling."""
        ...

    @property
    def ix_sample(self) -> npt.NDArray[np.int64]:
        """The buffer indices sampled, for ``update_priority``."""
        ...

    def to(self, device: torch.device) -> Self:
        """The same batch with every tensor on ``device``."""
        ...


N = TypeVar("N", bound=nn.Module)
"""The network type (``QNetwork``, ``IqnNetwork``)."""
C = TypeVar("C", bound=ValueBasedConfig)
"""The config type (``DqnConfig``)."""
B = TypeVar("B", bound=ValueBatch)
"""The batch type the agent learns from (``TransitionBatch``)."""


@attrs.frozen
class ValueParts(Generic[N]):
    """A value-based agent's one part: its network, trained by Adam, with its target network."""

    net: Tracked[N]


class ValueBasedAgent(TorchAgent[ValueParts[N]], Generic[C, N, B]):
    """A discrete-action agent that acts on per-action values and learns from batches ``B`` (see the
    module doc for how to write one).

    In train mode ``sample`` explores with the configured explorer; in eval mode it is greedy with no
    randomness. ``opt`` returns ``None`` (skips) while the buffer holds fewer than ``batch_size``
    transitions. The target network is updated after the optimiser step (every ``target_update_interval``
    opt steps), so it follows the freshly updated online network. ``state.pt`` keeps the optimiser's state
    under ``optimizer``, and ``opt_steps``, the explorer's schedule and RNG (``explorer``) and the agent's
    ``generator`` if it has one.

    Args:
        config: the hyperparameters (``self.config``).
        net: the online network, built by the subclass inside ``seeded(seed)``; moved to
            ``config.device``, and copied as the target network.
        spaces: the env's spaces; the actions must be discrete.
        seed: seeds the explorer.
        files: the file names of the online and target networks in a checkpoint.
        obs_shape: the shape the network takes one observation in; ``None``: flat, ``(obs_dim,)``.
        images: the network reads a dict observation's images (an encoder); else such an env is refused.

    Raises:
        TypeError: the actions are not discrete, or the env masks actions and the agent does not take
            masks (`takes_masks`; the message names the agent, ``name``).
        ValueError: ``config.device`` does not exist on this machine.
    """

    takes_masks: ClassVar[bool] = False
    """Whether the agent's targets honour the env's action mask (DQN's, QR-DQN's and IQN's do: the next
    state's value is its best legal action's, from `_legal` of the batch's next observations); without, an
    env with one is refused. Acting honours the mask either way."""

    def __init__(
        self,
        config: C,
        net: N,
        spaces: Spaces,
        seed: int,
        *,
        files: tuple[str, str] = ("net.pt", "net_tgt.pt"),
        obs_shape: tuple[int, ...] | None = None,
        images: bool = False,
    ) -> None:
        self.config = config
        self.n_actions = spaces.need_discrete(self.name, masks=self.takes_masks, images=images)
        self.action_mask = spaces.action_mask
        """Where the legal-action flags lie in each observation (the env's ``action_mask``), or ``None``."""
        self.obs_dim = spaces.obs_dim
        self.obs_shape = (spaces.obs_dim,) if obs_shape is None else obs_shape
        self.device = torch_device(config.device)
        online, target = files
        self.parts = ValueParts(
            net=Tracked.adam_with_target(
                net, online, "optimizer", config.lr, self.device, target, eps=config.adam_eps
            )
        )
        self.explorer = build_explorer(config.explorer, seed)
        self.lr_horizon = linear_horizon(config)
        """In opt steps: where the config's linear ``lr_schedule`` reaches 0 (a config with the fields of
        `border_py.agents.lr_schedule.ScheduledLrConfig`); ``None``: the rate stays ``config.lr``."""
        self._numpy_values: NumpyMlp | None = None
        """Set by an agent whose network acts as a `NumpyMlp` (`_values_of` then skips torch)."""

    @property
    def batch_size(self) -> int:
        """In transitions per opt step."""
        return self.config.batch_size

    def _argmax_mlp(self, layers: list[tuple[F32, F32]], encoder: nn.Module | None) -> MlpParts:
        """The export of an MLP of ``layers`` giving each action's value and the argmax over them (among
        the legal actions if the env masks actions), ``encoder`` (if any) in front."""
        policy = MlpParts(
            obs_mean=None,
            obs_std=None,
            obs_clip=None,
            layers=layers,
            activation="relu",
            head="argmax",
            action_mask=mask_span(self.action_mask),
        )
        return with_encoder(policy, encoder, self.obs_shape)

    def _argmax_network(
        self,
        kind: str,
        network: dict[str, Any],
        names: ArrayNames,
        values: nn.Module,
        encoder: nn.Module | None,
    ) -> GreedyNetwork:
        """The ``kind`` export of a network whose layers ``network`` lays out (their arrays in ``names``)
        and the argmax over ``values``' output (among the legal actions if the env masks actions),
        ``encoder`` (if any) in front."""
        policy = GreedyNetwork(
            kind=kind,
            network=network,
            weights=names.weights,
            action={"type": "discrete", "n": self.n_actions},
            module=ArgmaxGreedy(values),
            action_mask=mask_span(self.action_mask),
        )
        return with_encoder(policy, encoder, self.obs_shape)

    @abstractmethod
    def _action_values(self, obs: torch.Tensor) -> torch.Tensor:
        """The values ``(n, n_actions)`` the greedy action maximises, for observations ``(n, *obs_shape)``."""

    @abstractmethod
    def _loss(self, batch: B) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The loss of ``batch`` (on the agent's device) to minimise, each item's new priority (for
        prioritized replay) and the mean predicted value of the taken actions (for the record)."""

    def _legal(self, obs: torch.Tensor) -> torch.Tensor | None:
        """The legal actions, bool ``(n, n_actions)``, of a batch's observations ``(n, *obs_shape)`` (such
        as its ``next_obs``, for a target over the legal actions alone), or ``None`` if the env has no
        action mask."""
        if self.action_mask is None:
            return None
        return legal_flags(obs.reshape(len(obs), -1), self.action_mask)

    def _values_of(self, obs: npt.NDArray[Any], n: int) -> torch.Tensor:
        if self._numpy_values is not None:
            rows = np.asarray(obs, dtype=np.float32).reshape(n, -1)
            return torch.from_numpy(self._numpy_values(rows))
        with torch.inference_mode():
            # Frames cross to the device as uint8 (a quarter of the bytes); the network scales them.
            dtype = torch.uint8 if isinstance(obs, np.ndarray) and obs.dtype == np.uint8 else torch.float32
            x = torch.as_tensor(obs, dtype=dtype, device=self.device).reshape(n, *self.obs_shape)
            return self._action_values(x)

    def _act(self, obs: npt.NDArray[Any], n: int) -> npt.NDArray[np.int64]:
        """Int64 actions ``(n,)``: explored in train mode (one forward pass for all, made only if some
        action is greedy), greedy in eval mode; never one the observation's action mask forbids."""
        if n == 1 and self._numpy_values is not None:
            return self._act_one_in_numpy(obs, self._numpy_values)
        values: Callable[[], Any] = functools.partial(self._values_of, obs, n)
        legal = None if self.action_mask is None else legal_actions(obs, n, self.action_mask, self.name)
        if legal is not None:
            values = masked_values(values, legal)
        return np.stack(discrete_actions(self.explorer, self._train, self.n_actions, values, n, legal))

    def _act_one_in_numpy(self, obs: npt.NDArray[Any], forward: NumpyMlp) -> npt.NDArray[np.int64]:
        """`_act` for one observation through the numpy MLP with no torch call on the way (the sampler's
        every step): `discrete_action` over the numpy Q-values, whose argmax is torch's (the first largest
        value, the first NaN if any), so the same action, explorer schedule and explorer RNG."""
        row = np.asarray(obs, dtype=np.float32).reshape(1, -1)
        values: QValues = lambda: forward(row)[0]  # noqa: E731
        if self.action_mask is None:
            return discrete_action(self.explorer, self._train, self.n_actions, values).reshape(1)
        legal = legal_actions(row, 1, self.action_mask, self.name)[0]
        masked = masked_values(values, legal)
        return discrete_action(self.explorer, self._train, self.n_actions, masked, legal).reshape(1)

    def opt(self, buffer: ReplayBuffer[B]) -> Record | None:
        """``n_updates_per_opt`` gradient steps, each on its own batch, at a linear schedule's rate for opt
        step ``opt_steps`` (if the config has one); ``None`` while the buffer is smaller than a batch.

        Returns:
            The mean over the updates of ``train/loss``, ``train/q_mean`` and ``train/grad_norm``, and, for
            epsilon-greedy, ``train/epsilon``.
        """
        c, net = self.config, self.parts.net
        if len(buffer) < c.batch_size:
            return None
        if self.lr_horizon is not None:
            set_scheduled_lrs(self.lr_horizon, self.opt_steps, [(net.optimizer, c.lr)])
        n = int(getattr(c, "n_updates_per_opt", 1))  # a config of one's own may not have the field
        updates = [self._update(buffer, self.opt_steps * n + i + 1) for i in range(n)]
        self.opt_steps += 1
        loss, q_mean, grad_norm = (float(np.mean(values)) for values in zip(*updates, strict=True))
        return Record(
            {
                "train/loss": loss,
                "train/q_mean": q_mean,
                "train/grad_norm": grad_norm,
                **explorer_record(self.explorer),
            }
        )

    def _update(self, buffer: ReplayBuffer[B], update: int) -> tuple[float, float, float]:
        """Gradient step ``update`` (from 1, over the run) on a batch it samples; the target network
        follows every ``target_update_interval``-th. Returns its loss, mean Q and gradient norm."""
        c, net = self.config, self.parts.net
        batch = buffer.batch(c.batch_size).to(self.device)
        bf16 = getattr(c, "update_dtype", "float32") == "bfloat16"  # a config of one's own may not have it
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=bf16):
            loss, priority, q_mean = self._loss(batch)
        grad_norm = net.step_with_norm(loss.float(), c.max_grad_norm)
        if update % c.target_update_interval == 0:
            net.update_target(c.tau)
        if batch.weight is not None:
            buffer.update_priority(batch.ix_sample, priority.detach().float().cpu().numpy())
        return float(loss.detach()), float(q_mean), grad_norm

    def acting_state(self) -> dict[str, Any]:
        """The online network's weights as numpy arrays (`SyncModel`)."""
        return {"net": state_arrays(self.parts.net.net)}

    def load_acting_state(self, state: Mapping[str, Any], env_steps: int) -> None:
        """Loads `acting_state`'s weights into the online network; epsilon-greedy's schedule moves to
        ``env_steps`` (the run's, over all actors), so every actor explores as one sampler would."""
        load_state_arrays(self.parts.net.net, state["net"], self.name)
        if isinstance(self.explorer, EpsilonGreedy):
            self.explorer.n_steps = env_steps

    def _state(self) -> dict[str, Any]:
        # The explorer's schedule and RNG: exploration resumes exactly.
        return {**super()._state(), "explorer": self.explorer.state_dict()}

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        self.explorer.check_state_dict(state["explorer"], "explorer")

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.explorer.load_state_dict(state["explorer"])
