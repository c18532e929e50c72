"""Exported policies with an action mask (issue 54): the numpy policy (in memory, as the evaluator takes it,
and loaded from its files), the ONNX graph and the reference loader choose the best action each
observation's mask allows, the mask read from the observation as given (before normalisation); an
observation that allows none is refused; ``action.mask`` is written as version 4 and hostile or misplaced
masks are refused naming the field."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
import pytest
import torch

from border_py.agents import DqnConfig, PpoConfig, SacConfig
from border_py.agents.greedy import GreedyPolicy
from border_py.base import Spaces
from border_py.base.obs_parts import ObsParts
from border_py.export import NumpyPolicy, PolicyFileError, export_numpy, greedy_module, numpy_policy_of
from border_py.export.action_mask import greedy_actions
from border_py.export.exporters import MaskedArgmax
from border_py.export.numpy_policy import TORCH_RTOL
from examples.numpy_loader import load_policy

MASK = (3, 6)
"""The flags of 3 actions after 3 features, in 6-value observations."""
PARTS = ObsParts.of({"features": (3,), "action_mask": (3,)})
"""The same layout as a dict observation: the env's ``action_mask`` part."""
NORM_MEAN = np.array([0.5, -1.0, 2.0, -1.0, 2.0, -1.0], np.float32)
"""PPO's observation statistics, std 1: its flags normalised read 1 or 2 for actions 0 and 2, -2 or -1 for
action 1, whatever the raw flag: a mask read after normalisation would allow actions 0 and 2, always."""


class Masked:
    """``agent`` whose greedy policy has ``mask`` (the agents will set it from ``Spaces.action_mask``)."""

    def __init__(self, agent: Any, mask: Any = MASK) -> None:
        self.agent, self.mask = agent, mask
        self.obs_dim: int = agent.obs_dim
        self.device = torch.device("cpu")

    def greedy_policy(self) -> GreedyPolicy:
        policy: GreedyPolicy = attrs.evolve(self.agent.greedy_policy(), action_mask=self.mask)
        return policy


def _dqn(dueling: bool = False) -> Any:
    agent = DqnConfig(hidden=(8,), dueling=dueling).build(Spaces(obs_shape=(6,), n_actions=3), 0)
    with torch.no_grad():  # values far apart: no two within float rounding of each other
        for p in agent.parts.net.net.parameters():
            p.mul_(10.0)
    return agent


def _ppo() -> Any:
    config = PpoConfig(normalize_obs=True, clip_obs=3.0, hidden=(8,))
    agent = config.build(Spaces(obs_shape=(6,), n_actions=3), 0)
    agent.obs_rms.mean, agent.obs_rms.var = NORM_MEAN.astype(np.float64), np.ones(6)
    with torch.no_grad():
        agent.parts.model.net.action_net.weight.mul_(300.0)  # logits as far apart as a trained policy's
    return agent


def _q_values(agent: Any, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The agent's unmasked values in torch: DQN's Q-values, PPO's logits of the normalised observation."""
    x = torch.as_tensor(obs)
    with torch.no_grad():
        if hasattr(agent, "obs_rms"):
            std = torch.as_tensor(np.sqrt(agent.obs_rms.var + 1e-8), dtype=torch.float32)
            x = ((x - torch.as_tensor(agent.obs_rms.mean, dtype=torch.float32)) / std).clamp(-3.0, 3.0)
            values = agent.parts.model.net.policy(x)[1]
        else:
            values = agent.parts.net.net(x)
    out: npt.NDArray[np.float32] = values.numpy()
    return out


def _observations(n: int = 400) -> npt.NDArray[np.float32]:
    """Random features and random flags (0 or 1), at least one legal action in each row."""
    rng = np.random.default_rng(0)
    obs = rng.normal(scale=2.0, size=(n, 6)).astype(np.float32)
    flags = rng.integers(0, 2, size=(n, 3))
    flags[np.arange(n), rng.integers(0, 3, size=n)] = 1
    obs[:, 3:] = flags
    return obs


def _expected(agent: Any, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    values = _q_values(agent, obs)
    unmasked = values.argmax(axis=1)
    legal = obs[:, 3:] > 0.5
    assert (~legal[np.arange(len(obs)), unmasked]).mean() > 0.2  # the mask changes many rows' choice
    expected: npt.NDArray[np.int64] = np.where(legal, values, -np.inf).argmax(axis=1)
    return expected


def _onnx_ready() -> None:
    pytest.importorskip("onnxruntime", reason="the export extra (onnxruntime) is not installed")
    pytest.importorskip("onnxscript", reason="the export extra (onnxscript) is not installed")


def _policy(runtime: str, agent: Any, path: Path, parts: ObsParts | None = None) -> Any:
    if runtime == "numpy_of":
        return numpy_policy_of(agent, obs_parts=parts)
    if runtime == "numpy_file":
        return NumpyPolicy.load(export_numpy(agent, path, obs_parts=parts))
    _onnx_ready()
    from border_py.export import OnnxPolicy, export_onnx

    return OnnxPolicy.load(export_onnx(agent, path, obs_parts=parts))


BUILDERS: dict[str, Callable[[], Any]] = {"dqn": _dqn, "dqn_dueling": lambda: _dqn(True), "ppo": _ppo}
RUNTIMES = ["numpy_of", "numpy_file", "onnx"]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_the_greedy_action_is_the_best_legal_one_and_the_values_stay_raw(
    name: str, runtime: str, tmp_path: Path
) -> None:
    agent = BUILDERS[name]()
    policy = _policy(runtime, Masked(agent), tmp_path)
    obs = _observations()
    expected = _expected(agent, obs)
    got = policy.act(obs)
    np.testing.assert_array_equal(got, expected)
    assert (obs[np.arange(len(obs)), 3 + got] == 1).all()
    for i in range(0, len(obs), 53):  # one observation at a time
        assert policy.act(obs[i]) == expected[i]
        assert policy.act(obs[i]).shape == ()
    values, raw = policy.values(obs), _q_values(agent, obs)
    np.testing.assert_allclose(values, raw, rtol=0, atol=TORCH_RTOL * max(1.0, float(np.abs(raw).max())))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_dict_policy_reads_the_mask_from_its_action_mask_part(runtime: str, tmp_path: Path) -> None:
    agent = _dqn()
    policy = _policy(runtime, Masked(agent), tmp_path, PARTS)
    obs = _observations()
    batch = {key: PARTS.part(obs, key) for key in PARTS.keys}
    np.testing.assert_array_equal(policy.act(batch), _expected(agent, obs))


@pytest.mark.parametrize("name", ["dqn", "ppo"])
def test_the_reference_loader_honours_the_mask(name: str, tmp_path: Path) -> None:
    agent = BUILDERS[name]()
    act = load_policy(export_numpy(Masked(agent), tmp_path))
    obs = _observations()
    np.testing.assert_array_equal(act(obs), _expected(agent, obs))
    with pytest.raises(ValueError, match=r"^an observation's action_mask allows no action$"):
        act(np.zeros(6, np.float32))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_observation_that_allows_no_action_is_refused_in_one_line(runtime: str, tmp_path: Path) -> None:
    policy = _policy(runtime, Masked(_ppo()), tmp_path)
    obs = _observations(4)
    obs[2, 3:] = 0.0
    with pytest.raises(
        ValueError, match=r"^observation 2's action_mask allows no action \(every flag is 0\)"
    ):
        policy.act(obs)
    with pytest.raises(ValueError, match=r"^observation 0's action_mask allows no action"):
        policy.act(obs[2])
    policy.values(obs)  # the values take no mask


def test_the_torch_module_marks_an_observation_without_legal_actions_with_minus_one() -> None:
    module = greedy_module(Masked(_dqn()))
    obs = _observations(3)
    obs[1, 3:] = 0.0
    with torch.no_grad():
        _, action = module(torch.as_tensor(obs))
    assert action[1] == -1
    assert (action[[0, 2]] >= 0).all()


def test_a_masked_policy_is_version_4_and_an_unmasked_one_stays_version_3(tmp_path: Path) -> None:
    masked = json.loads((export_numpy(Masked(_dqn()), tmp_path / "m") / "policy.json").read_text())
    plain = json.loads((export_numpy(_dqn(), tmp_path / "p") / "policy.json").read_text())
    assert (masked["version"], masked["action"]) == (4, {"type": "discrete", "n": 3, "mask": [3, 6]})
    assert (plain["version"], plain["action"]) == (3, {"type": "discrete", "n": 3})


def test_a_version_4_file_without_a_mask_acts_as_version_3(tmp_path: Path) -> None:
    """Version 4 says what a reader must know, not that a mask is there: another writer may write 4 always."""
    path = export_numpy(_dqn(), tmp_path)
    spec = json.loads((path / "policy.json").read_text())
    (path / "policy.json").write_text(json.dumps({**spec, "version": 4}))
    obs = _observations()
    np.testing.assert_array_equal(NumpyPolicy.load(path).act(obs), _q_values(_dqn(), obs).argmax(axis=1))


def _rewritten(path: Path, **changes: Any) -> Path:
    spec = json.loads((path / "policy.json").read_text())
    for key, value in changes.items():
        spec[key] = {**spec[key], **value} if isinstance(value, dict) else value
    (path / "policy.json").write_text(json.dumps(spec))
    return path


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        ("3:6", r"\(two integers\), got '3:6'$"),
        ([3], r"\(two integers\), got \[3\]$"),
        ([3, 6, 9], r"\(two integers\), got \[3, 6, 9\]$"),
        ([3.0, 6.0], r"\(two integers\), got \[3.0, 6.0\]$"),
        ([True, 4], r"\(two integers\), got \[True, 4\]$"),
        (None, r"\(two integers\), got None$"),
        ([-1, 2], r"with 0 <= start < stop <= 6 \(obs_dim\) and 3 flags \(the actions\), got \[-1, 2\]$"),
        ([6, 3], r"with .*, got \[6, 3\]$"),
        ([4, 7], r"with .*, got \[4, 7\]$"),
        ([2, 6], r"with .*, got \[2, 6\]$"),
        ([10**30, 10**30 + 3], r"with .*, got \[1000000000000000000000000000000, "),
    ],
)
def test_a_hostile_mask_in_policy_json_is_refused_naming_the_field(
    mask: object, message: str, tmp_path: Path
) -> None:
    path = _rewritten(export_numpy(Masked(_dqn()), tmp_path), action={"mask": mask})
    spec_file = re.escape(str(path / "policy.json"))
    with pytest.raises(
        PolicyFileError, match=rf"^{spec_file}: 'action.mask' must be \[start, stop\] {message}"
    ):
        NumpyPolicy.load(path)


def test_a_mask_in_a_version_3_file_is_refused_as_no_writer_of_version_3_wrote_one(tmp_path: Path) -> None:
    path = _rewritten(export_numpy(Masked(_dqn()), tmp_path), version=3)
    with pytest.raises(PolicyFileError, match=r": 'action.mask' came in version 4, the file is version 3$"):
        NumpyPolicy.load(path)


def test_a_mask_on_a_box_policy_file_is_refused(tmp_path: Path) -> None:
    sac = SacConfig(actor_hidden=(8,), critic_hidden=(8,)).build(
        Spaces(obs_shape=(6,), action_low=[-1.0] * 3, action_high=[1.0] * 3), 0
    )
    path = _rewritten(export_numpy(sac, tmp_path), version=4, action={"mask": [3, 6]})
    with pytest.raises(PolicyFileError, match=r": 'action.mask' needs a discrete action: a box policy has"):
        NumpyPolicy.load(path)


@pytest.mark.parametrize("runtime", ["numpy_file", "onnx"])
@pytest.mark.parametrize(
    ("build", "mask", "message"),
    [
        (_dqn, (4, 7), r"^action_mask must be \[start, stop\] with 0 <= start < stop <= 6 .*got \[4, 7\]$"),
        (_dqn, (0, 6), r"^action_mask must be .* and 3 flags \(the actions\), got \[0, 6\]$"),
        (_dqn, (np.int64(3), 6), r"^action_mask must be \[start, stop\] \(two integers\)"),
        (
            lambda: SacConfig(actor_hidden=(8,), critic_hidden=(8,)).build(
                Spaces(obs_shape=(6,), action_low=[-1.0] * 3, action_high=[1.0] * 3), 0
            ),
            MASK,
            r"^action_mask needs a discrete action",
        ),
    ],
)
def test_a_mask_that_does_not_fit_the_policy_is_refused_at_export_writing_nothing(
    build: Callable[[], Any], mask: Any, message: str, runtime: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=message):
        _policy(runtime, Masked(build(), mask), tmp_path / "out")
    assert not (tmp_path / "out").exists()


class _Fixed(torch.nn.Module):
    """A greedy module whose values are given: ``obs -> (values, argmax)``."""

    def __init__(self, values: torch.Tensor) -> None:
        super().__init__()
        self.values = values

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.values, self.values.argmax(dim=1)


def test_a_legal_action_valued_minus_infinity_is_chosen_over_masked_ones() -> None:
    """Values of -inf (float32 overflow) tie with the masked actions' -inf: the legal one is still taken."""
    values = np.array([[-np.inf, -np.inf, 1.0], [-np.inf, 5.0, -np.inf]], np.float32)
    obs = np.zeros((2, 6), np.float32)
    obs[0, 4] = obs[1, 5] = 1.0  # row 0 allows action 1 alone, row 1 action 2 alone
    np.testing.assert_array_equal(greedy_actions(values, obs, MASK), [1, 2])
    with torch.no_grad():
        _, action = MaskedArgmax(_Fixed(torch.as_tensor(values)), MASK)(torch.as_tensor(obs))
    assert action.tolist() == [1, 2]
