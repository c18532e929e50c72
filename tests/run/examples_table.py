"""The example programs (``examples/<algo>_<env>.py``) and the zoo entry each one states in Python."""

from __future__ import annotations

import importlib
import runpy
import sys
from typing import Any

import attrs
import pytest


@attrs.frozen
class Example:
    """An example program's experiment (the module attribute ``attribute``) and its zoo entry."""

    module: str
    algo: str
    env_id: str
    variant: str | None = None
    attribute: str = "EXPERIMENT"

    def experiment(self) -> Any:
        return getattr(importlib.import_module(f"examples.{self.module}"), self.attribute)

    @property
    def name(self) -> str:
        return f"{self.module}.{self.attribute}"


EXAMPLES = [
    Example("dqn_cartpole", "dqn", "CartPole-v1"),
    Example("dqn_atari", "dqn", "ALE/Pong-v5"),
    Example("dqn_cartpole_async", "dqn", "CartPole-v1", variant="async"),
    Example("iqn_cartpole", "iqn", "CartPole-v1"),
    Example("qrdqn_cartpole", "qrdqn", "CartPole-v1"),
    Example("sac_pendulum", "sac", "Pendulum-v1"),
    Example("sac_mujoco", "sac", "HalfCheetah-v5"),
    Example("sac_point_goal", "sac", "border_py/PointGoal-v0"),
    Example("sac_her_point_goal", "sac", "border_py/PointGoal-v0", variant="her"),
    Example("sac_her_fetch", "sac", "FetchReach-v4"),
    Example("sac_pixel_target", "sac", "border_py/PixelTarget-v0"),
    Example("td3_pendulum", "td3", "Pendulum-v1"),
    Example("tqc_pendulum", "tqc", "Pendulum-v1"),
    Example("crossq_pendulum", "crossq", "Pendulum-v1"),
    Example("ppo_cartpole", "ppo", "CartPole-v1"),
    Example("a2c_cartpole", "a2c", "CartPole-v1"),
    Example("ppo_mujoco", "ppo", "Hopper-v5"),
    Example("ppo_atari", "ppo", "ALE/Pong-v5"),
    Example("ppo_pick_distinct", "ppo", "border_py/PickDistinct-v0"),
    Example("recurrent_ppo_cartpole", "recurrent_ppo", "border_py/CartPoleNoVel-v1"),
    Example("bc_pendulum", "bc", "pendulum-medium-v0"),
    Example("iql_pendulum", "iql", "pendulum-medium-v0"),
    Example("awac_pendulum", "awac", "pendulum-medium-v0", attribute="OFFLINE"),
    Example("awac_pendulum", "awac", "Pendulum-v1", attribute="FINETUNE"),
    Example("cql_pendulum", "cql", "pendulum-medium-v0"),
    Example("td3bc_pendulum", "td3bc", "pendulum-medium-v0"),
]


def run_example(module: str, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """Runs ``python -m examples.<module> ARGV`` in this process; its exit status."""
    monkeypatch.setattr(sys, "argv", [f"{module}.py", *argv])
    monkeypatch.delitem(sys.modules, f"examples.{module}", raising=False)  # runpy runs it afresh
    try:
        runpy.run_module(f"examples.{module}", run_name="__main__")
    except SystemExit as exc:
        return int(exc.code or 0)
    raise AssertionError(f"examples.{module} ended without sys.exit")
