"""``TrainerConfig``: the schedule every regime shares."""

from __future__ import annotations

import math

import attrs

_positive = attrs.validators.gt(0)
_optional_positive = attrs.validators.optional(_positive)
_DEFAULT_MAX_SKIPPED: int | None = 10_000


def _finite(instance: object, attribute: attrs.Attribute[float | None], value: float | None) -> None:
    if value is not None and not math.isfinite(value):
        raise ValueError(f"'{attribute.name}' must be a finite number: {value}")


@attrs.frozen(kw_only=True)
class TrainerConfig:
    """The trainer's schedule. Every interval is validated here, so no value can crash the loop.

    Training ends at the first of ``max_opts`` opt steps, ``max_env_steps`` env steps and an evaluation
    scoring ``stop_score``; at least one of the first two must be set.

    Examples:
        >>> TrainerConfig(max_opts=1000, eval_interval=100, model_dir="runs/x").record_interval
        100
        >>> TrainerConfig(max_env_steps=50_000).max_opts is None
        True
    """

    max_opts: int | None = attrs.field(default=None, validator=_optional_positive)
    """In opt steps: training stops after this many; ``None``: no limit (then ``max_env_steps`` is set)."""
    max_env_steps: int | None = attrs.field(default=None, validator=_optional_positive)
    """In env steps: training stops once this many were taken (after the opt steps due at that env step);
    ``None``: no limit. With a vector env of N sub-envs it can end up to N - 1 env steps past this."""
    stop_score: float | None = attrs.field(default=None, validator=_finite)
    """In the evaluator's score units: training stops after the first evaluation scoring at least this
    (Tianshou's ``stop_fn``, border's ``eval_threshold``), with a final checkpoint; ``None``: never."""
    opt_interval: int = attrs.field(default=1, validator=_positive)
    """In env steps: one ``agent.opt`` call every this many env steps."""
    warmup_period: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    """In env steps: no ``agent.opt`` call before this many env steps have filled the buffer."""
    eval_interval: int | None = attrs.field(default=None, validator=_optional_positive)
    """In opt steps: evaluate (and save ``model_dir/best`` on a new best score) every this many; ``None``:
    never (or every ``eval_interval_env_steps``)."""
    eval_interval_env_steps: int | None = attrs.field(default=None, validator=_optional_positive)
    """In env steps, in place of ``eval_interval``: evaluate every this many, rounded up to whole opt steps
    (``opt_interval`` env steps each: a rollout, for the on-policy regime); online regimes only."""
    record_interval: int = attrs.field(default=100, validator=_positive)
    """In opt steps: flush aggregated records to the recorder every this many."""
    save_interval: int | None = attrs.field(default=None, validator=_optional_positive)
    """In opt steps: save ``model_dir/<opt_steps>`` every this many; ``None``: never (or every
    ``save_interval_env_steps``)."""
    save_interval_env_steps: int | None = attrs.field(default=None, validator=_optional_positive)
    """In env steps, in place of ``save_interval``: save a checkpoint every this many, rounded up to whole
    opt steps as ``eval_interval_env_steps`` is; online regimes only."""
    model_dir: str | None = None
    """Directory of ``best/`` and ``<opt_steps>/``; ``None``: save nothing (then ``save_interval`` must be
    ``None``)."""
    seed: int = attrs.field(default=0, validator=[attrs.validators.ge(0), attrs.validators.le(2**32 - 1)])
    """Seed of the training env and of the replay buffer's sampling."""
    checkpoint_buffer: bool = False
    """Whether each ``model_dir/<opt_steps>/`` checkpoint holds the replay buffer (contents, priorities,
    sampling RNG). Needed for an exact resume; costs disk (up to capacity x transition size per
    checkpoint). Without it a resumed run starts from an empty buffer and warms up again for
    ``warmup_period`` env steps."""
    keep_checkpoints: int | None = attrs.field(default=None, validator=_optional_positive)
    """In checkpoints: keep only the newest this many ``model_dir/<opt_steps>/``; ``None`` keeps all.
    ``best`` is never removed."""
    max_skipped_opts: int | None = attrs.field(default=_DEFAULT_MAX_SKIPPED, validator=_optional_positive)
    """In ``agent.opt`` calls: stop with an error when this many calls in a row after the warm-up return
    ``None`` (the agent skipped), rather than loop without learning (a batch larger than the buffer, an
    empty dataset); ``None``: never."""

    def __attrs_post_init__(self) -> None:
        if self.max_opts is None and self.max_env_steps is None:
            raise ValueError("set max_opts or max_env_steps (or both): otherwise training never ends")
        for what in ("eval", "save"):
            if getattr(self, f"{what}_interval") is not None and getattr(self, f"{what}_interval_env_steps"):
                raise ValueError(
                    f"set {what}_interval (in opt steps) or {what}_interval_env_steps (in env steps), "
                    "not both"
                )
        if self.stop_score is not None and self.eval_every is None:
            raise ValueError("stop_score is set but eval_interval is None: no evaluation can reach it")

    def _in_opt_steps(self, env_steps: int | None) -> int | None:
        return None if env_steps is None else -(-env_steps // self.opt_interval)

    @property
    def eval_every(self) -> int | None:
        """In opt steps: the evaluation interval, whichever field set it; ``None``: no evaluation.

        Examples:
            >>> TrainerConfig(max_opts=99, opt_interval=1024, eval_interval_env_steps=50_000).eval_every
            49
        """
        return self.eval_interval or self._in_opt_steps(self.eval_interval_env_steps)

    @property
    def save_every(self) -> int | None:
        """In opt steps: the checkpoint interval, whichever field set it; ``None``: no checkpoints."""
        return self.save_interval or self._in_opt_steps(self.save_interval_env_steps)

    @property
    def eval_field(self) -> str:
        """The field that sets the evaluation interval, for messages: ``trainer.eval_interval`` or
        ``trainer.eval_interval_env_steps``."""
        env_steps = self.eval_interval_env_steps is not None
        return "trainer.eval_interval_env_steps" if env_steps else "trainer.eval_interval"
