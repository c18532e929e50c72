"""The Nature CNN's config, apart from its network (`border_py.agents.cnn`) so that an agent's config, and
an experiment read from YAML, import no torch: the network's module is imported when it is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import attrs

if TYPE_CHECKING:
    from border_py.agents.cnn import NatureCnn

__all__ = ["NatureCnnConfig"]


@attrs.frozen(kw_only=True)
class NatureCnnConfig:
    """The Nature DQN's convolutions: 32 8x8 filters of stride 4, 64 4x4 of stride 2, 64 3x3 of stride 1,
    each followed by a ReLU, flattened (3,136 features for 84x84 frames). The agent's ``hidden`` layers
    follow (Nature: one of 512 units).

    Examples:
        >>> NatureCnnConfig().build((4, 84, 84)).out_features
        3136
    """

    kind: Literal["nature_cnn"] = "nature_cnn"

    def build(self, obs_shape: tuple[int, ...]) -> NatureCnn:
        """The convolutions for observations of ``obs_shape`` ``(channels, height, width)``.

        Raises:
            ValueError: ``obs_shape`` is not 3-d, or its frames are smaller than the filters cover.
        """
        from border_py.agents.cnn import NatureCnn  # torch, imported only when a network is built

        return NatureCnn(obs_shape)
