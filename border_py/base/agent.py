"""``Agent``: a trainable policy."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from border_py.base.replay_buffer import ReplayBuffer
from border_py.base.typevars import A_co, B_contra, O_contra
from border_py.record import Record


class Agent(Protocol[O_contra, A_co, B_contra]):
    """A policy that learns from batches ``B`` of a replay buffer.

    The trainer drives it like this:

        agent.train()
        while opt_steps < max_opts:
            ...                                   # the sampler calls agent.sample(obs)
            record = agent.opt(buffer)            # None: the agent skipped (not an opt step)
            if evaluating:
                agent.eval(); score = evaluator.evaluate(agent); agent.train()
                agent.save_params(model_dir / "best")

    In train mode ``sample`` explores; in eval mode it is greedy and deterministic. Agents never log:
    ``opt`` returns its losses as a record with ``train/...`` keys.
    """

    def train(self) -> None:
        """Switches to train mode (exploring actions)."""
        ...

    def eval(self) -> None:
        """Switches to eval mode (greedy actions)."""
        ...

    def is_train(self) -> bool:
        """Whether the agent is in train mode."""
        ...

    def sample(self, obs: O_contra) -> A_co:
        """Returns an action for ``obs`` (exploring in train mode, greedy in eval mode)."""
        ...

    def opt(self, buffer: ReplayBuffer[B_contra]) -> Record | None:
        """Runs one optimisation step; returns its record, or ``None`` when the agent skipped it."""
        ...

    def save_params(self, path: Path) -> list[Path]:
        """Writes the agent's files into the existing directory ``path``; returns the files written."""
        ...

    def load_params(self, path: Path) -> None:
        """Reads what ``save_params`` wrote into ``path``."""
        ...
