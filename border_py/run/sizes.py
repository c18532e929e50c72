"""Whether an agent's networks, its replay buffer and its evaluation fit this machine's memory, judged
from their configs before anything is allocated: ``agent.hidden=[100000000]`` built gigabytes of weights,
then the first update asked for tens more and ended in a traceback after ``config.yaml`` was written (a
larger layer can exhaust the machine while it is being built); ``replay_buffer.capacity=10**16`` and
``evaluator.n_episodes=10**18`` were allocation tracebacks at the first push and the first evaluation."""

from __future__ import annotations

import itertools
import math
import os

import attrs

from border_py.base.spaces import Spaces
from border_py.config import layer_sizes, unit_counts

WEIGHT_COPIES = 5
"""Copies of each weight one update holds: the network, its target, the gradients, Adam's two moments."""
ACTIVATION_COPIES = 3
"""Copies of each unit's activation per batch row: the forward pass, its gradient, a target's pass."""
EPISODE_BYTES = 16
"""What an evaluation holds for each of its episodes before it plays the first: a list slot for its return
and one for its length."""


def update_bytes(agent_config: object, spaces: Spaces) -> int:
    """A generous estimate of the float32 memory one update needs: for every field of hidden layer sizes
    (``hidden``, ``actor_hidden``, ...), an MLP from the observation to the actions through those layers,
    its weights `WEIGHT_COPIES` times and its activations for a batch `ACTIVATION_COPIES` times."""
    inputs = math.prod(spaces.obs_shape) + (spaces.action_dim if spaces.n_actions is None else 0)
    outputs = spaces.n_actions or spaces.action_dim
    batch = int(getattr(agent_config, "batch_size", 1))
    total = 0
    for layers in _hidden_layers(agent_config).values():
        sizes = [inputs, *layers, outputs]
        weights = sum(a * b for a, b in itertools.pairwise(sizes))
        total += 4 * (WEIGHT_COPIES * weights + ACTIVATION_COPIES * batch * sum(sizes[1:]))
    return total


def _hidden_layers(agent_config: object) -> dict[str, tuple[int, ...]]:
    """The config's fields of hidden layer sizes (validated as such), by name."""
    cls = type(agent_config)
    if not attrs.has(cls):
        return {}
    return {
        field.name: tuple(getattr(agent_config, field.name))
        for field in attrs.fields(cls)
        if field.validator in (layer_sizes, unit_counts)
    }


def machine_bytes() -> int | None:
    """The machine's physical memory; ``None`` where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_fits_memory(agent_config: object, spaces: Spaces) -> None:
    """Refuses networks whose update would need more than the machine's memory (`update_bytes`).

    Raises:
        ValueError: the estimate, the machine's memory and the fields to lower.
    """
    need, have = update_bytes(agent_config, spaces), machine_bytes()
    if have is None or need <= have:
        return
    layers = [f"{name}={list(sizes)}" for name, sizes in _hidden_layers(agent_config).items()]
    raise ValueError(
        f"networks of {', '.join(layers)} need about {need / 2**30:,.0f} GiB for one update (batch "
        f"{getattr(agent_config, 'batch_size', 1)}), more than this machine's {have / 2**30:,.0f} GiB: "
        "lower the hidden layer sizes or the batch size"
    )


def check_buffer_fits_memory(buffer_config: object, spaces: Spaces) -> None:
    """Refuses a replay buffer whose arrays, once full, need more than the machine's memory (its config's
    ``full_nbytes(spaces)``; a buffer of one's own that states none is not checked).

    Raises:
        ValueError: the estimate, the machine's memory and the field to lower.
    """
    full_nbytes, have = getattr(buffer_config, "full_nbytes", None), machine_bytes()
    if not callable(full_nbytes) or have is None:
        return
    need, rows = int(full_nbytes(spaces)), int(getattr(buffer_config, "capacity", 1))
    if need <= have:
        return
    field = "n_steps" if hasattr(buffer_config, "n_steps") else "capacity"  # a rollout's is n_steps x envs
    raise ValueError(
        f"a capacity of {rows:,} transitions needs about {need / 2**30:,.0f} GiB ({need // rows:,} bytes "
        f"a transition), more than this machine's {have / 2**30:,.0f} GiB: lower {field}"
    )


def check_episodes_fit_memory(n_episodes: int, field: str) -> None:
    """Refuses an evaluation of more episodes than the machine's memory holds the results of
    (`EPISODE_BYTES` each), naming ``field``.

    Raises:
        ValueError: the estimate, the machine's memory and ``field``.
    """
    need, have = n_episodes * EPISODE_BYTES, machine_bytes()
    if have is None or need <= have:
        return
    raise ValueError(
        f"{field} {n_episodes:,} needs about {need / 2**30:,.0f} GiB for the episodes' returns and lengths "
        f"({EPISODE_BYTES} bytes an episode), more than this machine's {have / 2**30:,.0f} GiB: lower {field}"
    )
