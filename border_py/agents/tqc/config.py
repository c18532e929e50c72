"""Config of the TQC agent: SAC's fields and the critics' quantiles."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from border_py.agents.sac.config import SacConfig
from border_py.base.spaces import Spaces

if TYPE_CHECKING:
    from border_py.agents.tqc.agent import Tqc


@attrs.frozen(kw_only=True)
class TqcConfig(SacConfig):
    """Config of `Tqc`: `SacConfig`'s fields (the policy, the entropy coefficient, the optimisers) and the
    critics' quantiles. The defaults are the paper's for MuJoCo (5 critics of 25 quantiles, the top 2 of
    each dropped from the target); sb3-contrib's ``TQC`` has 2 critics by default, as the zoo's entries that
    follow RL Zoo do.

    Examples:
        >>> TqcConfig().n_critics, TqcConfig().n_quantiles
        (5, 25)
    """

    n_critics: int = attrs.field(default=5, validator=attrs.validators.ge(1))
    """How many distributional critics; their quantiles are pooled (no minimum)."""
    n_quantiles: int = attrs.field(default=25, validator=attrs.validators.ge(1))
    """Quantiles of the return each critic gives (M in the paper), at the fractions ``(i + 1/2) / M``."""
    top_quantiles_to_drop_per_net: int = attrs.field(default=2, validator=attrs.validators.ge(0))
    """How many of the largest pooled target quantiles are dropped, per critic (d in the paper: ``d x
    n_critics`` of the ``M x n_critics`` pooled ones): the overestimation control."""

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        if self.top_quantiles_to_drop_per_net >= self.n_quantiles:
            raise ValueError(
                f"top_quantiles_to_drop_per_net ({self.top_quantiles_to_drop_per_net}) must be below "
                f"n_quantiles ({self.n_quantiles}): some target quantiles must be kept"
            )

    def build(self, spaces: Spaces, seed: int) -> Tqc:
        """The agent, sized by ``spaces``, with initial weights from ``seed``.

        Raises:
            TypeError: the agent cannot act in ``spaces``.
        """
        from border_py.agents.tqc.agent import Tqc  # the agent module imports this one

        return Tqc(self, spaces, seed)
