"""The fields DQN, QR-DQN and IQN share (`DeepQConfig`): the optimiser, the batch, the target network,
the explorer, the pixel encoder and the device."""

from __future__ import annotations

from typing import Literal

import attrs

from border_py.agents.cnn_config import EncoderConfig
from border_py.agents.devices import device_name
from border_py.agents.explorer_config import EpsilonGreedyConfig, SoftmaxConfig
from border_py.agents.lr_schedule import check_lr_schedule
from border_py.config import positive_finite

__all__ = ["DeepQConfig"]


@attrs.frozen(kw_only=True)
class DeepQConfig:
    """The fields `DqnConfig`, `QrDqnConfig` and `IqnConfig` share, with DQN's defaults (`QrDqnConfig`
    sets sb3-contrib's for the learning rate, Adam's epsilon and the batch). Each adds its network's
    fields and its loss's.

    The discount is not here: each transition carries its own (``gamma^k``), set by the step processor
    (``SimpleStepProcessorConfig.gamma`` or ``NStepStepProcessorConfig``).
    """

    lr: float = attrs.field(default=1e-3, validator=positive_finite)
    """Adam learning rate (at the start of a linear ``lr_schedule``)."""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: the learning rate falls linearly to 0 over ``schedule_opt_steps``."""
    schedule_opt_steps: int | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.gt(0))
    )
    """In opt steps: where the linear schedule reaches 0 (the run's budget in opt steps); needed by it.
    Opt step ``k`` (from 0) trains at ``lr * (1 - min(k, schedule_opt_steps) / schedule_opt_steps)``."""
    adam_eps: float = attrs.field(default=1e-8, validator=positive_finite)
    """Adam's epsilon (the denominator's floor); Dopamine's Atari agents use 1.5e-4 to 3.125e-4."""
    batch_size: int = attrs.field(default=64, validator=attrs.validators.gt(0))
    """In transitions per opt step. ``opt`` skips (returns ``None``) while the buffer holds fewer."""
    tau: float = attrs.field(default=1.0, validator=[attrs.validators.gt(0.0), attrs.validators.le(1.0)])
    """Target update ``target <- tau * online + (1 - tau) * target``: 1.0 is a hard copy, < 1 Polyak."""
    target_update_interval: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """In updates (opt steps times ``n_updates_per_opt``): how often the target network is updated."""
    n_updates_per_opt: int = attrs.field(default=1, validator=attrs.validators.ge(1))
    """Gradient updates (each on its own batch) per ``opt`` call: SB3's ``gradient_steps`` taken in one
    block after every ``train_freq`` env steps (``trainer.opt_interval``), the policy held fixed between
    blocks. On MountainCar-v0 this matters: one update every 2 env steps flips the greedy action between
    near-tied values as often, and RL Zoo's entry then never reached the goal on 3 seeds, where 8 updates
    every 16 env steps did (`docs/results.md`)."""
    max_grad_norm: float | None = attrs.field(
        default=None, validator=attrs.validators.optional(positive_finite)
    )
    """Clip the gradients' global L2 norm to this; ``None``: no clipping."""
    explorer: EpsilonGreedyConfig | SoftmaxConfig = attrs.field(factory=EpsilonGreedyConfig)
    """How actions are explored in train mode (on the greedy values: the Q-values, or the quantiles'
    mean)."""
    encoder: EncoderConfig | None = None
    """What the ``hidden`` layers take: the Nature CNN's features of frames (``{kind: nature_cnn}``), a
    dict observation with images through the multi-input encoder (``{kind: multi_input}``); ``None``: the
    (flattened) observation itself."""
    device: str = attrs.field(default="cpu", validator=device_name)
    """Torch device of the networks (``cpu``, ``cuda``, ``cuda:1``); building the agent checks it exists."""
    update_dtype: Literal["float32", "bfloat16"] = attrs.field(
        default="float32", validator=attrs.validators.in_(("float32", "bfloat16"))
    )
    """``bfloat16``: each update's loss is computed under ``torch.autocast`` in bfloat16, so the network's
    matmuls and convolutions run in bf16 and its outputs come out rounded to it (double DQN's argmax
    included); the TD targets and the loss are computed from those outputs in float32, and the weights,
    the gradients and Adam stay float32. On a CPU with AVX-512-BF16 it makes
    the Nature CNN's update of a batch of 32 1.5-1.9x faster for DQN, 2.0-2.4x for IQN
    (`benchmarks/value_bf16.py`); it changes the numbers, so a run's results hold for the setting it ran
    with. Acting and evaluation stay float32."""

    def __attrs_post_init__(self) -> None:
        check_lr_schedule(self.lr_schedule, self.schedule_opt_steps)
