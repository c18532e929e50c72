"""The Nature CNN (Mnih et al., 2015): pixel features for DQN, QR-DQN, IQN, PPO and A2C. Its config,
which builds it, is `border_py.agents.cnn_config.NatureCnnConfig` (no torch there)."""

from __future__ import annotations

import torch
from torch import nn


class NatureCnn(nn.Module):
    """Maps uint8 frame stacks ``(batch, channels, height, width)`` to features ``(batch, out_features)``.

    The frames are scaled to [0, 1] here, on the network's device: a batch crosses to the GPU as uint8, a
    quarter of the float32 bytes, and no float copy of a frame is ever stored.

    Examples:
        >>> NatureCnn((4, 84, 84))(torch.zeros(2, 4, 84, 84, dtype=torch.uint8)).shape
        torch.Size([2, 3136])
    """

    def __init__(self, obs_shape: tuple[int, ...]) -> None:
        super().__init__()
        if len(obs_shape) != 3:
            raise ValueError(f"the Nature CNN takes (channels, height, width) observations, got {obs_shape}")
        self.convs = nn.Sequential(
            nn.Conv2d(obs_shape[0], 32, 8, stride=4),
            nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        try:
            with torch.no_grad():
                self.out_features = int(self.convs(torch.zeros(1, *obs_shape)).shape[1])
        except RuntimeError as exc:
            raise ValueError(f"frames of {obs_shape} are too small for the Nature CNN's filters") from exc

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """The features of ``obs`` (uint8 pixels, or floats already in [0, 1])."""
        x = obs.float() / 255.0 if obs.dtype == torch.uint8 else obs
        features: torch.Tensor = self.convs(x)
        return features
