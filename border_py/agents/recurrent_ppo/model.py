"""Recurrent PPO's network: an LSTM for the policy and one for the value (sb3-contrib's ``MlpLstmPolicy``
with ``enable_critic_lstm``), each followed by the MLP of `ActorCritic` and its head; optionally an encoder
in front of both LSTMs, shared (its ``CnnLstmPolicy`` and ``MultiInputLstmPolicy``).

A memory is the LSTMs' ``(h, c)``, stacked: ``(2, layers, lanes, lstm_hidden)`` for the policy's alone
(acting), ``(4, layers, lanes, lstm_hidden)`` for both (the policy's ``h, c`` then the value's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from border_py.agents.multi_input import Encoder
from border_py.agents.on_policy.model import ActorCritic, TwinMlp, orthogonal_init


class RecurrentActorCritic(ActorCritic):
    """``obs -> LSTM -> MLP -> logits or mean action`` and ``obs -> LSTM -> MLP -> value``: two LSTMs of
    ``layers`` layers of ``lstm_hidden`` units (PyTorch's initialisation, as sb3-contrib keeps it), then
    `ActorCritic`'s two MLPs of ``hidden`` layers and its heads (and its ``log_std``, gSDE on the policy
    MLP's output). With an ``encoder`` (a Nature CNN for frame stacks, a multi-input encoder for a dict
    observation with images), both LSTMs take its features of the observation, computed once: one encoder
    shared by the policy and the value, as sb3-contrib's ``CnnLstmPolicy`` shares its features extractor
    (initialised orthogonally with gain sqrt(2) under ``ortho_init``, as there).

    It is called with a memory: `act` for acting (the policy alone, one step of every lane),
    `step` for one step of both, `sequences` for whole sequences (an update's minibatch), `values`
    for values alone. The memoryless calls of `ActorCritic` are refused.

    Examples:
        >>> net = RecurrentActorCritic(3, 2, True, (8,), "tanh", False, 0.0, False, 16, 1)
        >>> memory = torch.zeros(4, 1, 5, 16)
        >>> latent, out, value, after = net.step(torch.zeros(5, 3), memory)
        >>> out.shape, value.shape, after.shape
        (torch.Size([5, 2]), torch.Size([5]), torch.Size([4, 1, 5, 16]))
    """

    def __init__(
        self,
        obs_dim: int,
        act_dim: int,
        discrete: bool,
        hidden: Sequence[int],
        activation: str,
        ortho_init: bool,
        log_std_init: float,
        gsde: bool,
        lstm_hidden: int,
        lstm_layers: int,
        encoder: Encoder | None = None,
    ) -> None:
        super().__init__(lstm_hidden, act_dim, discrete, hidden, activation, ortho_init, log_std_init, gsde)
        features = obs_dim if encoder is None else encoder.out_features
        self.lstm_pi = nn.LSTM(features, lstm_hidden, lstm_layers)
        self.lstm_vf = nn.LSTM(features, lstm_hidden, lstm_layers)
        self.encoder = encoder
        if encoder is not None and ortho_init:
            orthogonal_init(encoder.modules(), math.sqrt(2))
        self.memory_shape = (lstm_layers, lstm_hidden)
        """A lane's memory in each of ``h`` and ``c`` of one LSTM: ``(layers, lstm_hidden)``."""

    def zero_memory(self, rows: int, lanes: int, device: torch.device) -> torch.Tensor:
        """``rows`` (2: the policy's; 4: both) cleared memories of ``lanes`` lanes."""
        return torch.zeros(rows, self.memory_shape[0], lanes, self.memory_shape[1], device=device)

    def _twin(self) -> TwinMlp:
        body = self.body
        assert isinstance(body, TwinMlp)  # never a shared trunk: an encoder stands before the LSTMs
        return body

    def _features(self, x: torch.Tensor, lead: int = 1) -> torch.Tensor:
        """What the LSTMs take of observations ``x`` with ``lead`` leading dimensions: ``x`` itself, or
        the encoder's features ``(*lead, out_features)``."""
        if self.encoder is None:
            return x
        features: torch.Tensor = self.encoder(x.flatten(0, lead - 1)).unflatten(0, x.shape[:lead])
        return features

    def act(self, x: torch.Tensor, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One step of every lane's policy: ``(latent_pi, logits or mean action, memory after)`` for the
        observations ``x`` ``(lanes, *obs_shape)`` and the policy's memory ``(2, layers, lanes, hidden)``."""
        y, (h, c) = self.lstm_pi(self._features(x).unsqueeze(0), (memory[0], memory[1]))
        latent, _ = self._twin()(y[0], first_only=True)
        return latent, self.action_net(latent), torch.stack((h, c))

    def step(
        self, x: torch.Tensor, memory: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """One step of every lane's policy and value: ``(latent_pi, logits or mean action, value, memory
        after)`` for ``x`` ``(lanes, *obs_shape)`` and both memories ``(4, layers, lanes, hidden)``."""
        x = self._features(x)
        y_pi, (h_pi, c_pi) = self.lstm_pi(x.unsqueeze(0), (memory[0], memory[1]))
        y_vf, (h_vf, c_vf) = self.lstm_vf(x.unsqueeze(0), (memory[2], memory[3]))
        latent_pi, latent_vf = self._twin().pair(y_pi[0], y_vf[0])
        value = self.value_net(latent_vf).squeeze(-1)
        return latent_pi, self.action_net(latent_pi), value, torch.stack((h_pi, c_pi, h_vf, c_vf))

    def sequences(
        self, x: torch.Tensor, memory: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sequences ``x`` ``(time, sequences, *obs_shape)``, each from its memory ``(4, layers, sequences,
        hidden)`` with no episode start after its first step: ``(latent_pi, logits or mean action,
        value)``, each ``(time, sequences, ...)``. Padding after a sequence's end changes none of its
        outputs."""
        t, b = x.shape[0], x.shape[1]
        x = self._features(x, lead=2)
        y_pi, _ = self.lstm_pi(x, (memory[0].contiguous(), memory[1].contiguous()))
        y_vf, _ = self.lstm_vf(x, (memory[2].contiguous(), memory[3].contiguous()))
        latent_pi, latent_vf = self._twin().pair(y_pi.reshape(t * b, -1), y_vf.reshape(t * b, -1))
        out = self.action_net(latent_pi)
        value = self.value_net(latent_vf).reshape(t, b)
        return latent_pi.reshape(t, b, -1), out.reshape(t, b, -1), value

    def values(self, x: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        """``V`` of one step of ``x`` ``(lanes, *obs_shape)`` from the value's memory ``(2, layers, lanes,
        hidden)``, ``(lanes,)``."""
        y, _ = self.lstm_vf(self._features(x).unsqueeze(0), (memory[0].contiguous(), memory[1].contiguous()))
        _, latent_vf = self._twin()(y[0])
        out: torch.Tensor = self.value_net(latent_vf).squeeze(-1)
        return out

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        raise TypeError("a recurrent network needs a memory: call step, sequences, act or values")

    def policy(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise TypeError("a recurrent network needs a memory: call act")

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        raise TypeError("a recurrent network needs a memory: call values")
