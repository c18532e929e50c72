"""A trained model in a user's hands: `load_policy` reads a saved model of a model directory into a
`Policy` that acts on one observation or a batch, and `evaluate_policy` plays it for episodes and gives
the mean, the standard deviation and every return: Stable-Baselines3's ``SAC.load(path)``,
``model.predict(obs, deterministic=True)`` and ``evaluate_policy(model, env, n)``. A policy with memory
(recurrent PPO's) acts through ``predict_with_memory``, sb3-contrib's ``model.predict(obs, state,
episode_start)``.

Examples:
    >>> import tempfile
    >>> from border_py.run import load_experiment_text, train, TrainOptions, with_trainer
    >>> experiment = load_experiment_text('''
    ... env: {name: CartPole-v1}
    ... step_processor: {gamma: 0.99}
    ... replay_buffer: {capacity: 1000}
    ... agent: {type: dqn, batch_size: 16}
    ... trainer: {max_opts: 20, warmup_period: 50, eval_interval: 20}
    ... evaluator: {n_episodes: 2}''')
    >>> with tempfile.TemporaryDirectory() as d:
    ...     result = train(with_trainer(experiment, model_dir=d), TrainOptions(progress=False, quiet=True))
    ...     policy = load_policy(d)
    ...     action = policy.predict(np.zeros(4, np.float32))
    ...     evaluation = evaluate_policy(policy)
    >>> action.shape, policy.predict(np.zeros((3, 4), np.float32)).shape
    ((), (3,))
    >>> evaluation.mean == result.best_score, len(evaluation.returns)
    (True, 2)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Protocol, SupportsFloat, runtime_checkable

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.policy import RecurrentPolicy
from border_py.base.spaces import Spaces
from border_py.run.experiment import AnyExperiment, build_eval_env
from border_py.run.rundir import RunDir
from border_py.run.saved import load_agent, play_episodes, saved_model_path

__all__ = ["Action", "Evaluation", "GymLikeEnv", "Memory", "Policy", "evaluate_policy", "load_policy"]

Action = npt.NDArray[np.int64 | np.float32]
"""What `Policy.predict` returns: int64 actions of a discrete space, float32 ones of a box."""
Memory = npt.NDArray[np.float32]
"""A recurrent policy's memory of its lanes (`Policy.predict_with_memory`): ``(2, layers, lanes, hidden)``,
each LSTM layer's ``h`` then its ``c``; sb3-contrib's ``state`` ``(h, c)`` stacked."""


@attrs.frozen
class Evaluation:
    """Episodes played by a policy: their returns' mean and standard deviation (the population's, as
    SB3's ``evaluate_policy``), each return and each length, in episode order."""

    mean: float
    std: float
    returns: tuple[float, ...]
    lengths: tuple[int, ...]

    @classmethod
    def of(cls, returns: list[float], lengths: list[int]) -> Evaluation:
        return cls(float(np.mean(returns)), float(np.std(returns)), tuple(returns), tuple(lengths))


class GymLikeEnv(Protocol):
    """What `evaluate_policy` plays: a Gymnasium env's ``reset(seed=...)`` and ``step(action)``."""

    def reset(self, *, seed: int | None = None) -> tuple[object, dict[str, Any]]: ...

    def step(self, action: Any) -> tuple[object, SupportsFloat, bool, bool, dict[str, Any]]: ...


@runtime_checkable
class _Remembering(Protocol):
    """What `Policy.predict_with_memory` asks of an agent with memory (`border_py.agents.RecurrentPpo`)."""

    def start_episodes(self, starts: Sequence[bool]) -> None: ...

    def memory(self) -> Memory | None: ...

    def set_memory(self, memory: npt.ArrayLike) -> None: ...


class Policy:
    """A saved model's agent, ready to act (`load_policy` makes one).

    Attributes:
        spaces: the observations it takes (``spaces.obs_shape``) and its actions.
        path: the saved model it was loaded from.
        experiment: the run's experiment (its env, its agent's config).
    """

    def __init__(self, agent: Any, spaces: Spaces, path: Path, experiment: AnyExperiment) -> None:
        self._agent = agent
        self.spaces = spaces
        self.path = path
        self.experiment = experiment

    @property
    def recurrent(self) -> bool:
        """Whether the policy has memory (recurrent PPO's): it acts through `predict_with_memory`."""
        return isinstance(self._agent, RecurrentPolicy)

    def predict(self, obs: npt.ArrayLike | Mapping[str, npt.ArrayLike], deterministic: bool = True) -> Action:
        """The action for one observation (shape ``spaces.obs_shape``), or the actions for a batch of them
        (a leading batch dimension). A dict observation (``spaces.obs_parts``) is a mapping of its parts
        (a batch: each part with the leading dimension), as the Gymnasium env gives it, or its parts laid
        flat. ``deterministic``: the greedy action (the argmax, the mean action), as evaluation takes;
        else one drawn as in training, from the agent's own generator (seeded by the run's seed when
        loaded).

        Raises:
            ValueError: ``obs`` is neither one observation nor a batch of them (the shapes are named), a
                dict observation lacks a key or has a misshapen part (named), or the policy has memory
                (`recurrent`: use `predict_with_memory`).
        """
        if self.recurrent:
            raise ValueError(
                "predict: this policy has memory (its actions depend on the episode so far): use "
                "predict_with_memory(obs, memory, episode_start) and pass back the memory it returns"
            )
        x, single = self._checked("predict", obs)
        self._mode(deterministic)
        return self._act(x, single)

    def predict_with_memory(
        self,
        obs: npt.ArrayLike | Mapping[str, npt.ArrayLike],
        memory: npt.ArrayLike | None = None,
        episode_start: bool | npt.ArrayLike | None = None,
        deterministic: bool = True,
    ) -> tuple[Action, Memory]:
        """A policy with memory's action for one observation, or its actions for a batch (a lane each: a
        sub-env, or an episode played beside others), and its memory after them: sb3-contrib's
        ``model.predict(obs, state, episode_start, deterministic)``.

        Args:
            obs: as `predict` takes it.
            memory: what the lanes' previous call returned, `Memory` ``(2, layers, lanes, hidden)`` (one
                lane for one observation); ``None``: every lane starts an episode (zeros).
            episode_start: ``True`` where ``obs`` is the first observation of its lane's episode (one flag
                for every lane, or one per lane): that lane's memory is cleared first.
            deterministic: as `predict`.

        Returns:
            The actions as `predict` gives them, and the memory to pass with the lanes' next observations.

        Raises:
            ValueError: ``obs`` as `predict`; a memory of another shape or not finite; flags that are not
                one or one per lane; a policy without memory (`predict`).

        Example:
            memory, (obs, _) = None, env.reset()
            while not done:
                action, memory = policy.predict_with_memory(obs, memory)
                obs, reward, terminated, truncated, _ = env.step(action)
        """
        agent = self._agent
        if not self.recurrent:
            raise ValueError("predict_with_memory: this policy has no memory; use predict(obs)")
        if not isinstance(agent, _Remembering):  # a user's own agent may keep its memory to itself
            raise ValueError(
                f"predict_with_memory: {type(agent).__name__} has memory but no memory() and set_memory() "
                "to hand it over"
            )
        x, single = self._checked("predict_with_memory", obs)
        lanes = 1 if single else len(x)
        self._mode(deterministic)
        try:
            if memory is None:
                agent.start_episodes([True] * lanes)
            else:
                agent.set_memory(_lanes_memory(memory, lanes))
            if episode_start is not None:
                agent.start_episodes(_lane_flags(episode_start, lanes))
        except ValueError as exc:
            raise ValueError(f"predict_with_memory: {exc}") from None
        action = self._act(x, single)
        after = agent.memory()
        assert after is not None  # the lanes acted: they have a memory
        return action, after

    def _checked(
        self, call: str, obs: npt.ArrayLike | Mapping[str, npt.ArrayLike]
    ) -> tuple[npt.NDArray[Any], bool]:
        """``obs`` as one flat observation or a batch, and whether it is one."""
        x = self._flat(obs)
        shape = self.spaces.obs_shape
        if x.shape != shape and x.shape[1:] != shape:
            raise ValueError(
                f"{call}: an observation has shape {shape} (a batch: (n, *{shape})), got {x.shape}"
            )
        return x, x.shape == shape

    def _act(self, x: npt.NDArray[Any], single: bool) -> Action:
        if single:
            return np.asarray(self._agent.sample(x))
        return np.stack([np.asarray(a) for a in self._agent.sample_batch(list(x))])

    def _flat(self, obs: npt.ArrayLike | Mapping[str, npt.ArrayLike]) -> npt.NDArray[Any]:
        parts = self.spaces.obs_parts
        if not isinstance(obs, Mapping):
            x = np.asarray(obs)
            # Integers (np.zeros(4, int), say) are the env's float observations written another way; only
            # frame stacks (3-d, uint8) stay integers, which the pixel agents' encoders scale themselves.
            frames = len(self.spaces.obs_shape) == 3 and x.dtype == np.uint8
            return x.astype(np.float32) if x.dtype.kind in "biu" and not frames else x
        if parts is None:
            raise ValueError(
                f"predict: the policy takes array observations {self.spaces.obs_shape}, not a dict"
            )
        try:
            return parts.flatten_one_or_batch(obs)
        except ValueError as exc:
            raise ValueError(f"predict: {exc}") from None

    def run_env_episodes(self, episodes: int | None, deterministic: bool) -> Evaluation:
        """`evaluate_policy` without an env: the run's own evaluation env, as ``border-py eval`` plays it
        (the evaluator's episodes, or ``episodes``)."""
        self._mode(deterministic)
        with closing(build_eval_env(self.experiment)) as env:
            return Evaluation.of(*play_episodes(self.experiment, env, self._agent, episodes))

    def _mode(self, deterministic: bool) -> None:
        """The agent in eval mode (greedy actions) or in train mode (drawn ones)."""
        if deterministic:
            self._agent.eval()
        else:
            self._agent.train()


def load_policy(
    model_dir: str | os.PathLike[str], checkpoint: str = "best", *, trust_code: bool = False
) -> Policy:
    """The policy of the saved model ``checkpoint`` (``best``, ``25000``, ``finetune/60000``) of the run
    in ``model_dir``, sized by its evaluation env (built once, then closed; the training env is not).

    ``trust_code``: import the modules the run's ``config.yaml`` names (an env or an agent of your own);
    without it such a file is refused, as ``border-py eval`` refuses it without ``--trust-code``.

    Raises:
        FileNotFoundError: no run in ``model_dir``, or the saved model is missing or incomplete.
        ValueError: a bad checkpoint name, or a config that names code without ``trust_code``.
    """
    root = Path(model_dir)
    experiment = RunDir(root).read_config(trust_code)
    saved = saved_model_path(root, checkpoint)
    with closing(build_eval_env(experiment)) as env:
        agent = load_agent(experiment, saved, env)
        spaces: Spaces = env.spaces
    return Policy(agent, spaces, saved, experiment)


def evaluate_policy(
    policy: Policy,
    env: GymLikeEnv | None = None,
    n_episodes: int | None = None,
    *,
    deterministic: bool = True,
    seed: int = 0,
) -> Evaluation:
    """Plays ``n_episodes`` episodes of ``policy``: in ``env`` (a Gymnasium env, episode ``i`` reset with
    ``seed + i``; 10 episodes by default; a policy with memory carries it through each episode, from zeros
    at its reset), or, without one, in the run's own evaluation env as training
    and ``border-py eval`` play them (its seeds, its wrappers and frame stacking; the run's evaluator's
    episodes by default, so the mean is the score ``best/`` was saved with).

    Raises:
        ValueError: ``n_episodes`` < 1.
    """
    if n_episodes is not None and n_episodes < 1:
        raise ValueError(f"n_episodes must be >= 1, got {n_episodes}")
    if env is None:
        return policy.run_env_episodes(n_episodes, deterministic)
    returns, lengths = [], []
    for i in range(n_episodes or 10):
        obs, _ = env.reset(seed=seed + i)
        total, length, done = 0.0, 0, False
        memory: Memory | None = None  # a policy with memory starts each episode from zeros
        while not done:
            x = obs if isinstance(obs, Mapping) else np.asarray(obs)
            if policy.recurrent:
                action, memory = policy.predict_with_memory(x, memory, deterministic=deterministic)
            else:
                action = policy.predict(x, deterministic)
            obs, reward, terminated, truncated, _ = env.step(action)
            total, length, done = total + float(reward), length + 1, terminated or truncated
        returns.append(total)
        lengths.append(length)
    return Evaluation.of(returns, lengths)


def _lanes_memory(memory: npt.ArrayLike, lanes: int) -> Memory:
    """``memory`` as float32, refused unless it holds ``lanes`` lanes (the agent checks the rest).

    Raises:
        ValueError: another number of lanes, or not 4-d.
    """
    m = np.asarray(memory, dtype=np.float32)
    if m.ndim != 4 or m.shape[2] != lanes:
        raise ValueError(f"a memory of {lanes} lane(s) is (2, layers, {lanes}, hidden), got shape {m.shape}")
    return m


def _lane_flags(episode_start: bool | npt.ArrayLike, lanes: int) -> list[bool]:
    """``episode_start`` as one flag per lane (one flag: the same for every lane).

    Raises:
        ValueError: neither one flag nor one per lane.
    """
    flags = np.asarray(episode_start, dtype=bool).reshape(-1)
    if flags.size not in (1, lanes):
        raise ValueError(f"episode_start: one flag or one per lane ({lanes}), got {flags.size}")
    return [bool(flag) for flag in np.broadcast_to(flags, (lanes,))]
