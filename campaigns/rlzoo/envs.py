"""Which RL Zoo entries name an env border_py can translate for, and that env's id in today's Gymnasium.

RL Zoo keys its entries by the env ids of the Gymnasium it was tuned on (MuJoCo ``-v4``, older ``-v2`` and
``-v3``; ``LunarLander-v2`` before 2.9); Gymnasium 1.x ships MuJoCo ``-v5`` and ``LunarLander-v3``. An
entry whose env border_py does not run (Atari, PyBullet, goal-conditioned robotics, MiniGrid, a custom
env) is skipped with its reason, never refused key by key.
"""

from __future__ import annotations

import re

import attrs
import gymnasium

MUJOCO = (
    "Ant", "HalfCheetah", "Hopper", "Humanoid", "HumanoidStandup", "InvertedDoublePendulum",
    "InvertedPendulum", "Pusher", "Reacher", "Swimmer", "Walker2d",
)  # fmt: skip
"""The MuJoCo envs: every version RL Zoo names (v2 on mujoco-py, v3, v4) is v5 in Gymnasium 1.x."""

RENAMED = {
    "LunarLander-v2": "LunarLander-v3",
    "LunarLanderContinuous-v2": "LunarLanderContinuous-v3",
    "CarRacing-v0": "CarRacing-v3",
    "CarRacing-v1": "CarRacing-v3",
    "CarRacing-v2": "CarRacing-v3",
}
"""Box2D ids Gymnasium 1.x has replaced (BipedalWalker-v3 and the classic-control ids stand)."""

SKIPPED = (
    (re.compile(r"^atari$"), "Atari (RL Zoo's one entry for every game): pixel entries are written by hand "
                             "(ALE v5 ids, the frame buffer, the Nature CNN; see dqn.yaml's ALE/Pong-v5)"),
    (re.compile(r"^default$"), "RL Zoo's fallback for env ids it does not list: border_py's `defaults` "
                               "plays that part"),
    (re.compile(r"Bullet"), "PyBullet (pybullet_envs): not a Gymnasium env"),
    (re.compile(r"^(Fetch|Panda)|^parking-v0$"), "goal-conditioned robotics (gymnasium-robotics, panda-gym, "
                                                 "highway-env) with HER's replay buffer"),
    (re.compile(r"^MiniGrid-"), "MiniGrid: needs the minigrid package and its observation wrapper"),
)  # fmt: skip
"""Env families skipped as a whole, with the reason the report gives."""


@attrs.frozen
class EnvId:
    """An RL Zoo key and the Gymnasium id border_py's entry gets."""

    rlzoo: str
    """RL Zoo's key (``Hopper-v4``)."""
    gym: str
    """Gymnasium 1.x's id (``Hopper-v5``)."""

    @property
    def renamed(self) -> bool:
        """Whether the id changed."""
        return self.rlzoo != self.gym


def gym_id(key: str) -> EnvId | str:
    """The env of RL Zoo's entry ``key``, or why the entry is skipped.

    Examples:
        >>> gym_id("Hopper-v4").gym, gym_id("InvertedPendulum-v2").gym, gym_id("LunarLander-v2").gym
        ('Hopper-v5', 'InvertedPendulum-v5', 'LunarLander-v3')
        >>> gym_id("HalfCheetahBulletEnv-v0")
        'PyBullet (pybullet_envs): not a Gymnasium env'
    """
    for pattern, reason in SKIPPED:
        if pattern.search(key):
            return reason
    name, _, version = key.rpartition("-v")
    if name in MUJOCO and version.isdigit():
        return EnvId(key, f"{name}-v5")
    found = RENAMED.get(key, key)
    if found not in gymnasium.registry:
        return f"not registered in Gymnasium {gymnasium.__version__} (a custom env)"
    return EnvId(key, found)
