"""``RolloutBuffer``: one rollout of every sub-env, in order, handed whole to an on-policy agent.

The on-policy regime is the online trainer with this buffer: the sampler pushes one one-step
`Transition` per sub-env per step (sub-env 0 to N-1, step after step),
``TrainerConfig.opt_interval`` is the rollout length in env steps (``n_steps * num_envs``), and the agent's
``opt`` takes the whole rollout with ``batch`` (which empties the buffer). No update happens while a rollout
is collected, so the agent computes the old log-probabilities and values at the start of ``opt`` from the
stored observations and actions.

Its batches are `Rollout` s, not `TransitionBatch` es: an
off-policy agent given a rollout buffer, or an on-policy one given a replay buffer, is a type error.

A run resumed in the middle of a rollout continues it. An env replays its unfinished episode (a Gymnasium
vector env each sub-env's), so the rollout goes on as if never stopped; where sub-envs cannot be rewound
(ale-py's) they start new episodes, so each one's last transition before the resume is marked truncated (the
episode was cut there: its value bootstraps from its last observation, as at a time limit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.replay_buffer.npz import read_npz
from border_py.replay_buffer.storage import TransitionStorage
from border_py.replay_buffer.transition import Transition

if TYPE_CHECKING:
    import torch

ROLLOUT_FILE = "rollout_buffer.npz"


@attrs.frozen(kw_only=True, eq=False)
class Rollout:
    """One rollout as tensors of shape ``(n_steps, num_envs, ...)``: row ``t``, column ``i`` is sub-env
    ``i``'s transition at step ``t``.

    Attributes:
        obs: observations, float32 (uint8 for pixels, as the env gave them).
        act: actions (int64 for discrete spaces, float32 for boxes: what the policy returned).
        next_obs: the observation after the action; at an episode end, the episode's final one (a
            truncated episode bootstraps from it).
        reward: rewards, float32 ``(n_steps, num_envs)``.
        is_terminated: 1.0 where the episode terminated (no bootstrap).
        is_truncated: 1.0 where it was cut (bootstrap from ``next_obs``).
        discount: each transition's bootstrap discount (``gamma`` for one-step transitions).
    """

    obs: torch.Tensor
    act: torch.Tensor
    next_obs: torch.Tensor
    reward: torch.Tensor
    is_terminated: torch.Tensor
    is_truncated: torch.Tensor
    discount: torch.Tensor

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_steps, num_envs)``."""
        return int(self.reward.shape[0]), int(self.reward.shape[1])

    def to(self, device: torch.device) -> Rollout:
        """The same rollout with every tensor on ``device``."""
        if self.obs.device == device:
            return self
        return Rollout(**{f.name: getattr(self, f.name).to(device) for f in attrs.fields(Rollout)})


@attrs.frozen(kw_only=True)
class RolloutBufferConfig:
    """Config of `RolloutBuffer`.

    Examples:
        >>> RolloutBufferConfig(n_steps=32, num_envs=8).rollout_size
        256
    """

    n_steps: int = attrs.field(validator=attrs.validators.gt(0))
    """In env steps of each sub-env: the length of one rollout."""
    num_envs: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """The number of sub-envs of the training env (1 for a single env)."""

    @property
    def rollout_size(self) -> int:
        """In transitions (and env steps): ``n_steps * num_envs``, the trainer's ``opt_interval``."""
        return self.n_steps * self.num_envs

    @property
    def capacity(self) -> int:
        """In transitions: one rollout."""
        return self.rollout_size

    def build(self, seed: int) -> RolloutBuffer:
        """Builds an empty buffer (``seed`` is unused: a rollout is taken whole, in order)."""
        return RolloutBuffer(self)

    def full_nbytes(self, spaces: Spaces) -> int:
        """At most the bytes one rollout of an env of ``spaces`` holds (float32 observations; pixels,
        which the spaces do not tell apart, are kept in a quarter of that)."""
        return self.rollout_size * TransitionStorage.row_bytes(spaces)


class RolloutBuffer:
    """Holds exactly one rollout: ``n_steps`` steps of ``num_envs`` sub-envs, pushed step by step.

    Args:
        config: the rollout's shape.

    Examples:
        >>> buffer = RolloutBufferConfig(n_steps=2).build(seed=0)
        >>> o = np.zeros(3, np.float32)
        >>> for _ in range(2):
        ...     buffer.push(Transition(obs=o, act=np.array(1), next_obs=o, reward=1.0,
        ...                            is_terminated=False, is_truncated=False, discount=0.99))
        >>> rollout = buffer.batch(2)
        >>> rollout.obs.shape, len(buffer)
        (torch.Size([2, 1, 3]), 0)
    """

    def __init__(self, config: RolloutBufferConfig) -> None:
        self.config = config
        self._storage: TransitionStorage | None = None
        self._len = 0
        self._resumed_at: int | None = None
        """The first step pushed after `load` put an unfinished rollout back; ``None`` once it is pushed."""

    @property
    def capacity(self) -> int:
        """In transitions: one rollout."""
        return self.config.rollout_size

    def __len__(self) -> int:
        return self._len

    def push(self, item: Transition) -> None:
        """Stores the next transition (sub-env ``len % num_envs`` at step ``len // num_envs``).

        Raises:
            ValueError: the rollout is full (the agent did not take it: ``opt_interval`` must be
                ``n_steps * num_envs``), the transition's shapes differ from the first one's, or its
                reward overflows float32.
        """
        size = self.config.rollout_size
        if self._len >= size:
            raise ValueError(
                f"the rollout buffer is full ({size} transitions) and nobody took the rollout: "
                f"TrainerConfig.opt_interval must be n_steps * num_envs = {size}, with no warm-up"
            )
        if self._storage is None:
            self._storage = TransitionStorage.for_first(item, size, keep_uint8=True)
        if self._resumed_at is not None:
            self._cut_if_restarted(self._storage, item)
        self._storage.put(self._len, item)
        self._len += 1

    def _cut_if_restarted(self, s: TransitionStorage, item: Transition) -> None:
        """At the first step after a resume: where a sub-env started a new episode (its observation does
        not follow on from its last stored transition, which did not end an episode), that transition is
        marked truncated."""
        num_envs = self.config.num_envs
        if self._len // num_envs != self._resumed_at:
            self._resumed_at = None
            return
        last = self._len - num_envs
        ended = s.is_terminated[last] + s.is_truncated[last] > 0
        if not ended and not np.array_equal(s.next_obs[last], np.asarray(item.obs)):
            s.is_truncated[last] = 1.0
        if self._len % num_envs == num_envs - 1:
            self._resumed_at = None

    def batch(self, size: int) -> Rollout:
        """Takes the whole rollout (``size`` must be its size) and empties the buffer.

        Raises:
            ValueError: the buffer does not hold one whole rollout of ``size`` transitions, or its
                transitions are not one step of every sub-env at a time (a step processor that emits
                other than one transition per step).
        """
        import torch  # on the first batch (see `border_py.replay_buffer`)

        n_steps, num_envs = self.config.n_steps, self.config.num_envs
        if size != n_steps * num_envs or self._len != size or self._storage is None:
            raise ValueError(
                f"a rollout is taken whole: the buffer holds {self._len} of {n_steps * num_envs} "
                f"transitions, {size} were asked for"
            )
        s = self._storage
        self._check_order(s)
        self._len = 0
        shaped = {
            name: torch.from_numpy(
                getattr(s, name).reshape(n_steps, num_envs, *getattr(s, name).shape[1:]).copy()
            )
            for name in ("obs", "act", "next_obs", "reward", "is_terminated", "is_truncated", "discount")
        }
        return Rollout(**shaped)

    def _check_order(self, s: TransitionStorage) -> None:
        """Each sub-env's transitions follow on from one another: ``obs`` at step ``t`` is ``next_obs`` at
        step ``t - 1`` unless the episode ended there."""
        n_steps, num_envs = self.config.n_steps, self.config.num_envs
        obs = s.obs.reshape(n_steps, num_envs, -1)
        next_obs = s.next_obs.reshape(n_steps, num_envs, -1)
        ended = (s.is_terminated + s.is_truncated).reshape(n_steps, num_envs) > 0
        follows = np.all(obs[1:] == next_obs[:-1], axis=-1) | ended[:-1]
        if not follows.all():
            t, i = (int(v) for v in np.argwhere(~follows)[0])
            raise ValueError(
                f"the rollout's step {t + 1} of sub-env {i} does not follow on from step {t}: a rollout "
                "buffer needs exactly one transition per sub-env per step (a one-step processor)"
            )

    def update_priority(self, indices: npt.NDArray[np.int64], td_errors: npt.NDArray[Any]) -> None:
        """Does nothing: a rollout is taken whole."""

    def save(self, path: Path) -> list[Path]:
        """Writes the transitions of the unfinished rollout to ``path/rollout_buffer.npz`` (no pickle)."""
        arrays: dict[str, npt.NDArray[Any]] = (
            {} if self._storage is None else self._storage.columns(self._len)
        )
        arrays["state"] = np.array(json.dumps({"len": self._len, "rollout_size": self.config.rollout_size}))
        file = path / ROLLOUT_FILE
        with file.open("wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]  # every value is an array
        return [file]

    def load(self, path: Path) -> None:
        """Reads what `save` wrote, replacing the contents.

        Raises:
            FileNotFoundError: the file is missing.
            ValueError: it is corrupt, or was saved by a buffer of another rollout size.
        """
        file = path / ROLLOUT_FILE
        if not file.is_file():
            raise FileNotFoundError(f"{file} not found: the checkpoint holds no rollout buffer")
        arrays = read_npz(file, "rollout buffer")
        try:
            state = json.loads(str(arrays.pop("state")))
            n, size = int(state["len"]), int(state["rollout_size"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{file} is not a readable rollout buffer file: {exc}") from exc
        if size != self.config.rollout_size or not 0 <= n <= size:
            raise ValueError(
                f"{file} holds {n} transitions of a rollout of {size}, this buffer's is {self.capacity}"
            )
        self._storage = (
            None if n == 0 else TransitionStorage.from_columns(arrays, size, str(file), keep_uint8=True)
        )
        self._len = n
        num_envs = self.config.num_envs
        self._resumed_at = n // num_envs if 0 < n < size and n % num_envs == 0 else None
