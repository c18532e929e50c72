"""A trained model in a user's hands: `load_policy` reads a saved model of a model directory into a
`Policy` that acts on one observation or a batch, and `evaluate_policy` plays it for episodes and gives
the mean, the standard deviation and every return: Stable-Baselines3's ``SAC.load(path)``,
``model.predict(obs, deterministic=True)`` and ``evaluate_policy(model, env, n)``.

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
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any, Protocol, SupportsFloat

import attrs
import numpy as np
import numpy.typing as npt

from border_py.base.spaces import Spaces
from border_py.run.experiment import AnyExperiment, build_eval_env
from border_py.run.rundir import RunDir
from border_py.run.saved import load_agent, play_episodes, saved_model_path

__all__ = ["Action", "Evaluation", "GymLikeEnv", "Policy", "evaluate_policy", "load_policy"]

Action = npt.NDArray[np.int64 | np.float32]
"""What `Policy.predict` returns: int64 actions of a discrete space, float32 ones of a box."""


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

    def predict(self, obs: npt.ArrayLike | Mapping[str, npt.ArrayLike], deterministic: bool = True) -> Action:
        """The action for one observation (shape ``spaces.obs_shape``), or the actions for a batch of them
        (a leading batch dimension). A dict observation (``spaces.obs_parts``) is a mapping of its parts
        (a batch: each part with the leading dimension), as the Gymnasium env gives it, or its parts laid
        flat. ``deterministic``: the greedy action (the argmax, the mean action), as evaluation takes;
        else one drawn as in training, from the agent's own generator (seeded by the run's seed when
        loaded).

        Raises:
            ValueError: ``obs`` is neither one observation nor a batch of them (the shapes are named), or
                a dict observation lacks a key or has a misshapen part (named).
        """
        x = self._flat(obs)
        shape = self.spaces.obs_shape
        if x.shape != shape and x.shape[1:] != shape:
            raise ValueError(
                f"predict: an observation has shape {shape} (a batch: (n, *{shape})), got {x.shape}"
            )
        self._mode(deterministic)
        if x.shape == shape:
            return np.asarray(self._agent.sample(x))
        return np.stack([np.asarray(a) for a in self._agent.sample_batch(list(x))])

    def _flat(self, obs: npt.ArrayLike | Mapping[str, npt.ArrayLike]) -> npt.NDArray[Any]:
        parts = self.spaces.obs_parts
        if not isinstance(obs, Mapping):
            return np.asarray(obs)
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
    ``seed + i``; 10 episodes by default), or, without one, in the run's own evaluation env as training
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
        while not done:
            action = policy.predict(obs if isinstance(obs, Mapping) else np.asarray(obs), deterministic)
            obs, reward, terminated, truncated, _ = env.step(action)
            total, length, done = total + float(reward), length + 1, terminated or truncated
        returns.append(total)
        lengths.append(length)
    return Evaluation.of(returns, lengths)
