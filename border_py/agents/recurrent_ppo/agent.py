"""The recurrent PPO agent: PPO's update over whole sequences, with an LSTM's memory carried through the
rollout and cleared at episode starts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt
import torch

from border_py.agents.greedy import MlpParts, lstm_parts, with_encoder
from border_py.agents.on_policy.model import ActorCritic
from border_py.agents.on_policy.returns import bootstrap_values
from border_py.agents.ppo.agent import Ppo
from border_py.agents.recurrent_ppo.model import RecurrentActorCritic
from border_py.agents.recurrent_ppo.sequences import cut, episode_starts, pack, padded
from border_py.base.spaces import Spaces
from border_py.replay_buffer.rollout import Rollout

if TYPE_CHECKING:  # the config's build() imports this module
    from border_py.agents.recurrent_ppo.config import RecurrentPpoConfig

_ROLLOUT_ONLY = ("memory", "starts", "latent")
"""The prepared rollout's rows that are not a minibatch's loss inputs."""


class RecurrentPpo(Ppo):
    """PPO (Schulman et al., 2017) with an LSTM policy and value (sb3-contrib's ``RecurrentPPO``), for
    tasks whose observations do not tell the state: the policy acts on the episode so far.

    Acting keeps one memory per lane (each sub-env of the vector env); the sampler clears a lane's at its
    episode's start (`start_episodes`, the `border_py.base.RecurrentPolicy` protocol). Train and eval mode
    keep separate memories, so an evaluation in the middle of a rollout leaves the rollout's as it was.

    ``opt`` replays the rollout step by step from the memories at its start (the collecting policy's),
    clearing each lane's after an episode's end: the old log-probabilities and values, and each step's
    memory. The update then makes PPO's epochs over minibatches of whole sequences (pieces of episodes of
    at most ``batch_size`` steps, shuffled), each run through the LSTMs from its first step's memory.
    Values at truncations and at the rollout's end carry on from the step's memory, uncleared.

    With an ``encoder`` (`border_py.agents.cnn_config.EncoderConfig`: the Nature CNN for frame stacks,
    sb3-contrib's ``CnnLstmPolicy``; the multi-input encoder for a dict observation with images, its
    ``MultiInputLstmPolicy``), both LSTMs take the encoder's features, one encoder for the two; without one,
    an image part of a dict observation is refused, naming it.

    Saved: ``ppo.pt`` and its Adam as PPO's, and in ``state.pt`` the memory of the lanes acting in train
    mode and the memories the next rollout starts from, so a resumed run acts and learns as the
    uninterrupted one.

    Args:
        config: hyperparameters.
        spaces: the env's observation size and its actions (discrete, or a box).
        seed: seeds network initialisation and all sampling.

    Raises:
        ValueError: gSDE with discrete actions, or a device this machine does not have.

    Examples:
        >>> import numpy as np
        >>> from border_py.agents import RecurrentPpoConfig
        >>> agent = RecurrentPpo(RecurrentPpoConfig(lstm_hidden=8), Spaces(obs_shape=(2,), n_actions=2), 0)
        >>> agent.start_episodes([True, True])
        >>> [int(a) in (0, 1) for a in agent.sample_batch([np.zeros(2, np.float32)] * 2)]
        [True, True]
    """

    name = "RecurrentPPO"
    config: RecurrentPpoConfig

    def __init__(self, config: RecurrentPpoConfig, spaces: Spaces, seed: int) -> None:
        super().__init__(config, spaces, seed)
        self._memory: dict[bool, torch.Tensor | None] = {True: None, False: None}
        """The policy's memory ``(2, layers, lanes, hidden)`` of the lanes acting in train mode (``True``)
        and in eval mode; ``None`` before a lane started."""
        self._rollout_memory: torch.Tensor | None = None
        """Both LSTMs' memories ``(4, layers, lanes, hidden)`` where the next rollout starts."""
        self._rollout_shape = (0, 0)

    @property
    def net(self) -> RecurrentActorCritic:
        net = self.parts.model.net
        assert isinstance(net, RecurrentActorCritic)
        return net

    def _network(self) -> ActorCritic:
        c = self.config
        encoder = None if c.encoder is None else c.encoder.build(self.obs_shape, self.obs_parts)
        return RecurrentActorCritic(
            self.obs_dim,
            self.act_dim,
            self.discrete,
            c.hidden,
            c.activation,
            c.ortho_init,
            c.log_std_init,
            c.gsde,
            c.lstm_hidden,
            c.lstm_layers,
            encoder,
        )

    def start_episodes(self, starts: Sequence[bool]) -> None:
        """Clears the memory of the lanes flagged in ``starts`` (of the current mode): their next
        observation is an episode's first. With every flag set, it (re)starts ``len(starts)`` lanes.

        Raises:
            ValueError: some lanes flagged, but the lanes acting are not ``len(starts)``.
        """
        flags = torch.as_tensor(list(starts), dtype=torch.bool, device=self.device)
        memory = self._memory[self._train]
        if bool(flags.all()):
            self._memory[self._train] = self.net.zero_memory(2, len(flags), self.device)
        elif bool(flags.any()):
            if memory is None or memory.shape[2] != len(flags):
                lanes = "none" if memory is None else memory.shape[2]
                raise ValueError(f"start_episodes: {len(flags)} flags for {lanes} lanes acting")
            self._memory[self._train] = memory.masked_fill(flags.reshape(1, 1, -1, 1), 0.0)

    def _policy(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One step of each lane's policy, its memory carried on. Lanes that never started (or a different
        number of them than before) start now."""
        memory = self._memory[self._train]
        if memory is None or memory.shape[2] != x.shape[0]:
            memory = self.net.zero_memory(2, x.shape[0], self.device)
        latent, out, after = self.net.act(x, memory)
        self._memory[self._train] = after
        return latent, out

    def _rollout_forward(
        self, obs: torch.Tensor, rollout: Rollout
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        """The collecting policy step by step over the rollout, from the memories at its start; the
        extra rows are each step's ``memory`` (before it, ``(4, layers, hidden)``), ``starts`` and the
        policy's ``latent``. Leaves the memories the next rollout starts from."""
        n_steps, num_envs = self._rollout_shape = rollout.shape
        x = obs.reshape(n_steps, num_envs, *obs.shape[1:])
        memory = self._rollout_memory
        if memory is None or memory.shape[2] != num_envs:
            memory = self.net.zero_memory(4, num_envs, self.device)
        ended = rollout.is_terminated + rollout.is_truncated > 0
        keep = (~ended).to(memory.dtype).reshape(n_steps, 1, 1, -1, 1)
        befores, afters, outs = [], [], []
        for t in range(n_steps):
            befores.append(memory)
            *out, after = self.net.step(x[t], memory)
            afters.append(after)
            outs.append(out)
            memory = after * keep[t]
        self._rollout_memory = memory
        shape = self.net.memory_shape
        latent, act_out, value = (torch.cat([o[i] for o in outs]) for i in range(3))
        extra = {
            "memory": torch.stack(befores).permute(0, 3, 1, 2, 4).reshape(n_steps * num_envs, 4, *shape),
            "starts": torch.as_tensor(episode_starts(ended.cpu().numpy()).reshape(-1), device=self.device),
            "latent": latent,
        }
        next_value = self._recurrent_next_values(
            rollout, value.reshape(n_steps, num_envs), torch.stack(afters)
        )
        return latent, act_out, value, next_value, extra

    def _recurrent_next_values(
        self, rollout: Rollout, value: torch.Tensor, afters: torch.Tensor
    ) -> torch.Tensor:
        """``V(next_obs)`` of every step: the next step's value where the episode went on, else (at a
        truncation, and at the rollout's end) the value network on ``next_obs`` from the step's memory
        ``afters`` ``(n_steps, 4, layers, lanes, hidden)``, uncleared."""
        n_steps, num_envs = rollout.shape
        next_obs = rollout.next_obs.reshape(n_steps * num_envs, -1)
        memory = afters[:, 2:].permute(1, 2, 0, 3, 4).reshape(2, afters.shape[2], n_steps * num_envs, -1)
        return bootstrap_values(
            rollout,
            value,
            lambda rows: self.net.values(self._network_obs(next_obs[rows], len(rows)), memory[:, :, rows]),
        )

    def _epoch(self, data: dict[str, torch.Tensor], clip: float) -> Iterator[dict[str, torch.Tensor]]:
        """One pass over the rollout's sequences, shuffled, in minibatches of whole sequences."""
        n_steps, num_envs = self._rollout_shape
        starts = data["starts"].reshape(n_steps, num_envs).cpu().numpy()
        pieces = cut(starts, self.config.batch_size)
        order = torch.randperm(len(pieces), generator=self.generator, device=self.device).cpu().tolist()
        for group in pack(pieces[:, 2], order, self.config.batch_size):
            index, valid = padded(pieces[group], num_envs)
            yield self._sequence_minibatch(
                data,
                torch.as_tensor(index, device=self.device),
                torch.as_tensor(valid, device=self.device),
                clip,
            )

    def _sequence_minibatch(
        self, data: dict[str, torch.Tensor], index: torch.Tensor, valid: torch.Tensor, clip: float
    ) -> dict[str, torch.Tensor]:
        """PPO's losses over the sequences whose padded rows are ``index`` ``(longest, sequences)``, run
        through the LSTMs from their first step's memory."""
        memory = data["memory"][index[0]].permute(1, 2, 0, 3)
        latent, out, value = self.net.sequences(data["obs"][index], memory)
        rows = index[valid]
        batch = {k: v[rows] for k, v in data.items() if k not in _ROLLOUT_ONLY}
        return self._losses(batch, latent[valid], out[valid], value[valid], clip)

    def _mean_std(self, data: dict[str, torch.Tensor]) -> float:
        """The collecting policy's mean standard deviation over the rollout (replaying it with the updated
        LSTMs would cost a second pass)."""
        with torch.no_grad():
            return float(self._std(data["latent"]).mean())

    def greedy_policy(self) -> MlpParts:
        """The eval-mode policy for export: PPO's (`OnPolicyAgent.greedy_policy`: the observation's
        normalisation, the policy's layers, the argmax or the mean clipped to the box, the action mask) with
        the policy's LSTM between the normalisation (or the encoder, `with_encoder`) and the layers: the
        ``lstm`` kind of docs/export-format.md. Its memory is the caller's to carry
        (`border_py.export.NumpyPolicy.act_with_memory`)."""
        policy = attrs.evolve(super().greedy_policy(), lstm=lstm_parts(self.net.lstm_pi))
        return with_encoder(policy, self.net.encoder, self.obs_shape)

    def memory(self) -> npt.NDArray[np.float32] | None:
        """A copy of the policy's memory of the lanes acting in the current mode (train or eval),
        ``(2, layers, lanes, hidden)``: each layer's ``h``, then its ``c``; ``None`` before a lane started."""
        memory = self._memory[self._train]
        return None if memory is None else memory.detach().cpu().numpy().copy()

    def set_memory(self, memory: npt.ArrayLike) -> None:
        """Sets the policy's memory of the lanes acting in the current mode to ``memory`` (a copy), as
        `memory` returns it: the next ``sample_batch`` of ``memory.shape[2]`` observations carries it on.

        Raises:
            ValueError: ``memory`` is not a finite ``(2, layers, lanes, hidden)`` array of this policy's
                layers and hidden size.
        """
        m = np.array(memory, dtype=np.float32)
        layers, hidden = self.net.memory_shape
        if m.ndim != 4 or (m.shape[0], m.shape[1], m.shape[3]) != (2, layers, hidden) or m.shape[2] < 1:
            raise ValueError(f"a memory is (2, {layers}, lanes, {hidden}): h then c, got shape {m.shape}")
        if not np.isfinite(m).all():
            raise ValueError("the memory holds values that are not finite")
        self._memory[self._train] = torch.from_numpy(m).to(self.device)

    def _state(self) -> dict[str, Any]:
        return {
            **super()._state(),
            "memory": self._memory[True],
            "rollout_memory": self._rollout_memory,
        }

    def _check_state(self, state: dict[str, Any]) -> None:
        super()._check_state(state)
        layers, hidden = self.net.memory_shape
        for key, rows in (("memory", 2), ("rollout_memory", 4)):
            value = state[key]
            if value is None:
                continue
            if (
                not isinstance(value, torch.Tensor)
                or value.dim() != 4
                or (value.shape[0], value.shape[1], value.shape[3]) != (rows, layers, hidden)
                or not bool(torch.isfinite(value).all())
            ):
                shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                raise ValueError(
                    f"{key} must be None or a finite tensor ({rows}, {layers}, lanes, {hidden}), got {shape}"
                )

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        memory, rollout_memory = state["memory"], state["rollout_memory"]
        self._memory = {True: None if memory is None else memory.to(self.device), False: None}
        self._rollout_memory = None if rollout_memory is None else rollout_memory.to(self.device)
