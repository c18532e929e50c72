"""Exploration for discrete actions (shared by DQN, QR-DQN and IQN): the explorers, each seeded with its
own RNG, and their configs (`border_py.agents.explorer_config`). Eval mode never explores; these are used
only for actions sampled in train mode."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from border_py.agents.checkpoint_files import saved_count

# The configs live in a torch-free module (an agent's config names them); offered here with the explorers.
from border_py.agents.explorer_config import EpsilonGreedyConfig as EpsilonGreedyConfig
from border_py.agents.explorer_config import SoftmaxConfig as SoftmaxConfig
from border_py.base.spaces import legal_flags

QValues = Callable[[], torch.Tensor | npt.NDArray[np.float32]]
"""Q-values for an explorer, made only when it needs them: a tensor, or an array (numpy acting). Both
argmaxes return the first largest value (the first NaN, if any). An agent that masks actions gives the
forbidden ones ``-inf`` (`masked_values`)."""
Legal = npt.NDArray[np.bool_]
"""The legal actions of one observation, a flag per action (an env's ``action_mask``)."""


class EpsilonGreedy:
    """Random action with probability epsilon, else greedy; epsilon follows a linear schedule in env steps.

    Examples:
        >>> e = EpsilonGreedy(EpsilonGreedyConfig(eps_start=1.0, eps_final=0.0, final_step=10), seed=0)
        >>> e.epsilon()
        1.0
    """

    def __init__(self, config: EpsilonGreedyConfig, seed: int) -> None:
        self.config = config
        self.n_steps = 0
        self._rng = np.random.default_rng(seed)

    def epsilon(self) -> float:
        """Epsilon at the current env step."""
        c = self.config
        if self.n_steps >= c.final_step:
            return c.eps_final
        return c.eps_start + (c.eps_final - c.eps_start) * self.n_steps / c.final_step

    def action(self, n_actions: int, q_values: QValues, legal: Legal | None = None) -> int:
        """Returns an action and counts one env step; ``q_values`` (a tensor or an array: both argmaxes
        return the first largest value) is called only for a greedy action; a random action is drawn
        among the ``legal`` ones where given (one draw either way)."""
        eps = self.epsilon()
        self.n_steps += 1
        rng = self._rng
        if rng.random() < eps:
            if legal is None:
                return int(rng.integers(n_actions))
            choices = np.flatnonzero(legal)
            return int(choices[rng.integers(len(choices))])
        return int(q_values().argmax())

    def state_dict(self) -> dict[str, Any]:
        """The schedule position and the RNG state, for a checkpoint."""
        return {"n_steps": self.n_steps, "rng": self._rng.bit_generator.state}

    def check_state_dict(self, state: Any, key: str) -> None:
        """Refuses, changing nothing, a saved state (under ``key``) `load_state_dict` would fail on.

        Raises:
            ValueError: naming ``key`` and the field.
        """
        _check_rng(self._rng, state, key)
        saved_count(state.get("n_steps"), f"{key}.n_steps")

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restores what `state_dict` returned."""
        self.n_steps = int(state["n_steps"])
        self._rng.bit_generator.state = state["rng"]


class Softmax:
    """Samples an action with probability ``softmax(q / temperature)``."""

    def __init__(self, config: SoftmaxConfig, seed: int) -> None:
        self.config = config
        self._rng = np.random.default_rng(seed)

    def action(self, n_actions: int, q_values: QValues, legal: Legal | None = None) -> int:
        """Returns an action sampled from the softmax of ``q_values()`` (computed in torch either way); a
        forbidden action's ``-inf`` value gives it probability 0, so ``legal`` adds nothing here."""
        q = torch.as_tensor(q_values())
        probs = torch.softmax(q.reshape(-1).double() / self.config.temperature, dim=0).numpy()
        return int(self._rng.choice(n_actions, p=probs / probs.sum()))

    def state_dict(self) -> dict[str, Any]:
        """The RNG state, for a checkpoint."""
        return {"rng": self._rng.bit_generator.state}

    def check_state_dict(self, state: Any, key: str) -> None:
        """Refuses, changing nothing, a saved state (under ``key``) `load_state_dict` would fail on.

        Raises:
            ValueError: naming ``key`` and the field.
        """
        _check_rng(self._rng, state, key)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restores what `state_dict` returned."""
        self._rng.bit_generator.state = state["rng"]


Explorer = EpsilonGreedy | Softmax


def _check_rng(rng: np.random.Generator, state: Any, key: str) -> None:
    """Tries ``state["rng"]`` on a fresh bit generator of ``rng``'s kind: numpy converts a state's numbers
    only when it takes one (``-1`` or ``2**200`` raise ``OverflowError`` there)."""
    if not isinstance(state, Mapping):
        raise ValueError(f"{key} must be a mapping, got {type(state).__name__}")
    kind = type(rng.bit_generator)
    try:
        kind().state = state["rng"]
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{key}.rng is not a {kind.__name__} state: {exc!r:.200}") from exc


def build_explorer(config: EpsilonGreedyConfig | SoftmaxConfig, seed: int) -> Explorer:
    """Builds the explorer ``config`` describes."""
    if isinstance(config, EpsilonGreedyConfig):
        return EpsilonGreedy(config, seed)
    return Softmax(config, seed)


def discrete_action(
    explorer: Explorer, train: bool, n_actions: int, q_values: QValues, legal: Legal | None = None
) -> npt.NDArray[np.int64]:
    """The action of a value-based agent as an int64 array of shape ``()``: explored in train mode (among
    the ``legal`` actions where given), ``argmax q_values()`` in eval mode (no randomness, and the
    explorer's schedule does not advance)."""
    act = explorer.action(n_actions, q_values, legal) if train else int(q_values().argmax())
    return np.array(act, dtype=np.int64)


def explorer_record(explorer: Explorer) -> dict[str, float]:
    """What an explorer adds to an agent's ``opt`` record: ``train/epsilon`` for epsilon-greedy."""
    return {"train/epsilon": explorer.epsilon()} if isinstance(explorer, EpsilonGreedy) else {}


def discrete_actions(
    explorer: Explorer,
    train: bool,
    n_actions: int,
    q_values: Callable[[], torch.Tensor],
    n: int,
    legal: npt.NDArray[np.bool_] | None = None,
) -> Sequence[npt.NDArray[np.int64]]:
    """`discrete_action` for ``n`` observations at once: ``q_values()`` returns their Q-values
    ``(n, n_actions)`` in one forward pass, made only if some action is greedy; ``legal``: each row's
    legal actions ``(n, n_actions)``. Each action is explored on its own, as ``n`` calls of
    `discrete_action` would (the schedule advances by ``n``)."""
    q: torch.Tensor | None = None

    def row(i: int) -> torch.Tensor:
        nonlocal q
        if q is None:
            q = q_values()
        return q[i]

    return [
        discrete_action(
            explorer, train, n_actions, functools.partial(row, i), None if legal is None else legal[i]
        )
        for i in range(n)
    ]


def legal_actions(obs: npt.NDArray[Any], n: int, mask: slice, agent: str) -> Legal:
    """The legal actions ``(n, n_actions)`` of ``n`` flat observations whose ``mask`` slice flags them.

    Raises:
        ValueError: an observation allows no action (naming ``agent``).
    """
    legal = legal_flags(np.asarray(obs).reshape(n, -1), mask)
    if not legal.any(axis=1).all():
        raise ValueError(f"{agent}: an observation's action_mask allows no action: {legal.astype(int)}")
    return legal


def masked_values(values: QValues, legal: Legal) -> Callable[[], torch.Tensor | npt.NDArray[np.float32]]:
    """``values`` with every action ``legal`` does not flag set to ``-inf`` (an argmax or softmax then
    never takes it), made only when called."""

    def masked() -> torch.Tensor | npt.NDArray[np.float32]:
        q = values()
        if isinstance(q, torch.Tensor):
            allowed = torch.as_tensor(legal, device=q.device).reshape(q.shape)
            return q.masked_fill(~allowed, -torch.inf)
        return np.where(legal.reshape(q.shape), q, np.float32(-np.inf)).astype(np.float32)

    return masked
