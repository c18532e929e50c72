"""gymnasium-robotics' envs: their ids found without a ``module:`` prefix, the fix of their joint functions
for mujoco 4, and the one-line refusal where the robotics extra is missing."""

from __future__ import annotations

import importlib.util
import types
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from border_py import GymEnvConfig
from border_py.envs import robotics
from border_py.envs.gymnasium import make_gym
from border_py.run import experiment_from_dict, zoo

mujoco = pytest.importorskip("mujoco", reason="mujoco is not installed (the mujoco extra)")

JOINTS = """<mujoco><worldbody>
  <body name="a"><freejoint name="free"/><geom size=".1"/></body>
  <body name="b" pos="1 0 0"><joint name="ball" type="ball"/><geom size=".1"/>
    <body name="c"><joint name="slide" type="slide"/><joint name="hinge" type="hinge"/>
      <geom size=".1"/></body>
  </body>
</worldbody></mujoco>"""
"""One joint of each type, each after another in qpos (7 + 4 + 1 + 1) and qvel (6 + 3 + 1 + 1)."""


def _model() -> tuple[Any, Any]:
    model = mujoco.MjModel.from_xml_string(JOINTS)
    return model, mujoco.MjData(model)


@pytest.mark.parametrize(
    ("joint", "qpos", "qvel"),
    [
        ("free", (0, 7), (0, 6)),
        ("ball", (7, 11), (6, 9)),
        ("slide", (11, 12), (9, 10)),
        ("hinge", (12, 13), (10, 11)),
    ],
)
def test_the_fixed_joint_functions_read_and_write_each_joints_own_span(
    joint: str, qpos: tuple[int, int], qvel: tuple[int, int]
) -> None:
    model, data = _model()
    data.qpos[:] = 0.0  # from the model's qpos0, whose quaternions are not
    pos = np.arange(qpos[1] - qpos[0], dtype=np.float64) + 0.5
    vel = np.arange(qvel[1] - qvel[0], dtype=np.float64) - 2.0
    robotics.set_joint_qpos(model, data, joint, pos if len(pos) > 1 else pos[0])
    robotics.set_joint_qvel(model, data, joint, vel if len(vel) > 1 else vel[0])
    assert np.count_nonzero(data.qpos) == len(pos)  # nothing outside the span was written
    assert np.array_equal(data.qpos[slice(*qpos)], pos)
    assert np.array_equal(data.qvel[slice(*qvel)], vel)
    got = robotics.get_joint_qpos(model, data, joint)
    assert np.array_equal(got, pos)
    got[:] = 9.0  # a copy, as gymnasium-robotics' getters return
    assert np.array_equal(robotics.get_joint_qvel(model, data, joint), vel)
    assert np.array_equal(data.qpos[slice(*qpos)], pos)


def test_the_fixed_joint_functions_refuse_an_unknown_joint_or_a_misshapen_value_naming_the_joint() -> None:
    model, data = _model()
    with pytest.raises(ValueError, match="joint 'elbow': not part of the model"):
        robotics.get_joint_qpos(model, data, "elbow")
    with pytest.raises(ValueError, match=r"joint 'free': value of shape \(3,\), expected \(7,\)"):
        robotics.set_joint_qpos(model, data, "free", np.zeros(3))


def _utils(works: bool) -> Any:
    """A stand-in for ``gymnasium_robotics.utils.mujoco_utils`` whose ``set_joint_qpos`` does or does not
    fail on a hinge joint as 1.4.2's does under mujoco 4."""

    def set_joint_qpos(*args: Any) -> None:
        assert works

    def original(*args: Any) -> None:
        raise AssertionError

    return types.SimpleNamespace(
        set_joint_qpos=set_joint_qpos,
        set_joint_qvel=original,
        get_joint_qpos=original,
        get_joint_qvel=original,
    )


def test_the_joint_functions_are_replaced_only_where_the_originals_fail_and_once() -> None:
    working = _utils(works=True)
    assert not robotics.patch_joint_functions(working)
    assert working.get_joint_qvel is not robotics.get_joint_qvel
    failing = _utils(works=False)
    assert robotics.patch_joint_functions(failing)
    names = ("set_joint_qpos", "set_joint_qvel", "get_joint_qpos", "get_joint_qvel")
    assert [getattr(failing, n) for n in names] == [getattr(robotics, n) for n in names]
    assert not robotics.patch_joint_functions(failing)  # patched already


def test_without_gymnasium_robotics_its_ids_are_refused_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.delitem(gym.registry, "FetchReach-v4", raising=False)
    with pytest.raises(ValueError, match=r"env name 'FetchReach-v4': .*border_py\[robotics\]"):
        make_gym("FetchReach-v4", {}, gym.make)
    # An env of the user's named like one of its families is Gymnasium's to make.
    monkeypatch.setitem(gym.registry, "FetchMyCoffee-v0", gym.spec("CartPole-v1"))
    assert make_gym("FetchMyCoffee-v0", {}, gym.make).observation_space.shape == (4,)


def test_a_zoo_entry_of_a_robotics_id_names_no_module_so_its_file_needs_no_trust() -> None:
    assert not robotics.is_robotics_id("HalfCheetah-v5")
    assert robotics.is_robotics_id("gymnasium_robotics:PointMaze_UMaze-v3")
    assert (
        experiment_from_dict(zoo.entry("sac", "FetchReach-v4").data, trust_code=False).env_id
        == "FetchReach-v4"
    )


@pytest.mark.parametrize("name", ["FetchReach-v4", "gymnasium_robotics:FetchPush-v4"])
def test_a_fetch_env_builds_on_this_mujoco_as_a_goal_env(name: str) -> None:
    pytest.importorskip(
        "gymnasium_robotics", reason="gymnasium-robotics is not installed (the robotics extra)"
    )
    env = GymEnvConfig(name=name).build(seed=0)
    parts = env.obs_parts
    assert parts is not None
    assert [p.key for p in parts.parts] == ["achieved_goal", "desired_goal", "observation"]
    obs = env.reset()
    reward = env.goal_reward()
    assert reward is not None
    achieved, desired = obs[None, 0:3], obs[None, 3:6]
    assert reward(
        np.concatenate([achieved, achieved]), np.concatenate([achieved, desired]), [{}, {}]
    ).tolist() == [
        0.0,
        -1.0,
    ]
    step, _ = env.step(np.zeros(4, np.float32))
    assert step.reward == -1.0
    env.close()


def test_the_fixed_functions_match_gymnasium_robotics_own_where_its_comparisons_pass() -> None:
    """Free and ball joints (a Fetch object's, a hand's) pass the originals' comparisons on any mujoco: the
    same values read and written (but a ball joint's qvel, which the original getter reads 4 wide)."""
    pytest.importorskip(
        "gymnasium_robotics", reason="gymnasium-robotics is not installed (the robotics extra)"
    )
    original = _originals()
    model, ours = _model()
    theirs = mujoco.MjData(model)
    for name, width in (("free", 7), ("ball", 4)):
        value = np.linspace(0.1, 0.9, width)
        original["set_joint_qpos"](model, theirs, name, value)
        robotics.set_joint_qpos(model, ours, name, value)
        original["set_joint_qvel"](model, theirs, name, value[: width - 1])
        robotics.set_joint_qvel(model, ours, name, value[: width - 1])
        assert np.array_equal(
            original["get_joint_qpos"](model, theirs, name), robotics.get_joint_qpos(model, ours, name)
        )
    assert np.array_equal(theirs.qpos, ours.qpos)
    assert np.array_equal(theirs.qvel, ours.qvel)
    assert np.array_equal(
        original["get_joint_qvel"](model, theirs, "free"), robotics.get_joint_qvel(model, ours, "free")
    )


def _originals() -> dict[str, Any]:
    """gymnasium-robotics' own joint functions, loaded afresh from its source (its module's may be
    patched by now)."""
    spec = importlib.util.find_spec("gymnasium_robotics.utils.mujoco_utils")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {
        n: getattr(module, n)
        for n in ("set_joint_qpos", "set_joint_qvel", "get_joint_qpos", "get_joint_qvel")
    }
