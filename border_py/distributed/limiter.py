"""``RateLimiter``: the samples-per-insert control between one learner and its actors (Acme's
``SampleToInsertRatio``, counted in env steps and opt steps)."""

from __future__ import annotations


class RateLimiter:
    """Holds opt steps to ``(env_steps - warmup_end) / opt_interval`` exactly from above and within
    ``tolerance`` from below.

    The learner may take an opt step only when the env steps already inserted call for it (it waits when
    ahead); an actor may be given ``steps`` more env steps only while the inserted and in-flight env steps
    would call for at most ``tolerance`` opt steps the learner has not taken (actors wait when ahead).

    Examples:
        >>> limiter = RateLimiter(opt_interval=2, tolerance=3)
        >>> limiter.opts_allowed(env_steps=10, opt_steps=4, warmup_end=0)
        1
        >>> limiter.may_insert(env_steps=10, in_flight=4, steps=2, opt_steps=4, warmup_end=0)
        False
    """

    def __init__(self, opt_interval: int, tolerance: int) -> None:
        if opt_interval < 1 or tolerance < 1:
            raise ValueError(f"opt_interval and tolerance must be >= 1, got {opt_interval}, {tolerance}")
        self.opt_interval = opt_interval
        self.tolerance = tolerance

    def _due(self, env_steps: int, warmup_end: int) -> int:
        return max(0, env_steps - warmup_end) // self.opt_interval if env_steps > warmup_end else 0

    def opts_allowed(self, env_steps: int, opt_steps: int, warmup_end: int) -> int:
        """How many opt steps the learner may take now."""
        return max(0, self._due(env_steps, warmup_end) - opt_steps)

    def may_insert(self, env_steps: int, in_flight: int, steps: int, opt_steps: int, warmup_end: int) -> bool:
        """Whether an actor may be asked for ``steps`` more env steps, with ``in_flight`` already asked for.
        The warm-up is always allowed: no opt step is due before it ends."""
        total = env_steps + in_flight + steps
        if total - steps < warmup_end:
            return True
        return self._due(total, warmup_end) - opt_steps <= self.tolerance
