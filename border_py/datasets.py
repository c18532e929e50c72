"""Offline datasets in the ecosystem's format, Minari (the ``offline`` extra).

- `collect` rolls a policy out in an env config (a trained agent's ``best/``, with optional epsilon or
  action noise, or a random policy) and writes a local Minari dataset with
  ``minari.create_dataset_from_buffers``. Terminated and truncated stay apart; the author, the description
  and the behaviour policy's mean return go into its metadata.
- `MinariDatasetConfig` loads any local Minari dataset (ours or another tool's) as a read-only,
  seeded `ArrayDataset` of the ``TransitionBatch`` es the online agents
  learn from, with reward normalisation as an option; `observation_stats` gives the observation
  statistics an offline agent normalises with.

Remote Minari hubs are not used: datasets live under ``MINARI_DATASETS_PATH`` (Minari's own variable;
``~/.minari/datasets`` without it) or the ``data_path`` given. ``minari`` is imported only when one of these
is called.
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import attrs
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from border_py.base.policy import Policy, start_episodes
from border_py.dataset_trust import refuse_code
from border_py.envs.gymnasium import Act, GymEnvConfig, Obs
from border_py.replay_buffer.dataset import ArrayDataset
from border_py.replay_buffer.simple import SimpleReplayBuffer, SimpleReplayBufferConfig
from border_py.replay_buffer.transition import Transition

BEHAVIOUR_RETURN_KEY = "behaviour_mean_return"
"""The metadata key of the behaviour policy's mean return over the complete episodes collected."""


def _minari() -> Any:
    try:
        import minari
    except ImportError as exc:
        raise ImportError("datasets need the offline extra: pip install 'border_py[offline]'") from exc
    return minari


@contextlib.contextmanager
def datasets_path(data_path: str | None) -> Iterator[None]:
    """While active, Minari reads and writes datasets under ``data_path`` (unchanged for ``None``)."""
    if data_path is None:
        yield
        return
    previous = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = os.path.abspath(data_path)  # Minari joins a relative one twice
    try:
        yield
    finally:
        if previous is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = previous


@attrs.frozen(kw_only=True)
class CollectionReport:
    """What `collect` wrote."""

    dataset_id: str
    n_transitions: int
    n_episodes: int
    """Episodes in the dataset, the last one cut short (truncated) when the budget ended inside it."""
    mean_return: float
    """The behaviour policy's mean return over the complete episodes (NaN when none completed)."""


@attrs.frozen(kw_only=True)
class DatasetInfo:
    """What a dataset's Minari metadata says of it."""

    author: str = "border_py"
    """The dataset's author."""
    description: str = ""
    """Its description (`collect` appends the behaviour policy's mean return)."""
    algorithm_name: str | None = None
    """What made the behaviour policy."""
    author_email: str | None = None
    """The author's contact, if any."""
    code_permalink: str | None = None
    """A link to the code that made the dataset, if any."""
    ref_scores: tuple[float, float] | None = None
    """``(random, expert)`` mean returns, stored as Minari's ``ref_min_score`` and ``ref_max_score``: the
    references of D4RL's normalised score."""


def collect(
    policy: Policy[Obs, Act],
    env_config: GymEnvConfig,
    n_transitions: int,
    dataset_id: str,
    *,
    seed: int = 0,
    epsilon: float = 0.0,
    action_noise: float = 0.0,
    info: DatasetInfo = DatasetInfo(),
    data_path: str | None = None,
) -> CollectionReport:
    """Rolls ``policy`` out for ``n_transitions`` env steps and writes them as the Minari dataset
    ``dataset_id`` (``pendulum-medium-v0``) under ``data_path`` (default: ``MINARI_DATASETS_PATH``).

    ``policy`` acts as it is (an agent in eval mode greedily, in train mode with its own noise), in the env
    seeded with ``seed``; ``epsilon`` replaces a discrete action by a uniformly random one with that
    probability, ``action_noise`` adds Gaussian noise of that std (in half action ranges) to a Box action,
    clipped to the bounds. The episode the budget ends in is kept, truncated there.

    Raises:
        ValueError: a bad budget or noise; the dataset exists already (Minari's error).
    """
    if n_transitions < 1 or not 0.0 <= epsilon <= 1.0 or action_noise < 0.0:
        raise ValueError(
            f"collect needs n_transitions >= 1, epsilon in [0, 1] and action_noise >= 0; got "
            f"{n_transitions}, {epsilon}, {action_noise}"
        )
    _minari()  # before the roll-out: a missing extra fails fast
    rng = np.random.default_rng(seed)
    env = env_config.build(seed)
    episodes, returns = _roll_out(policy, env, n_transitions, rng, epsilon, action_noise)
    env.close()
    mean_return = float(np.mean(returns)) if returns else math.nan
    note = f"Behaviour policy's mean return over {len(returns)} complete episodes: {mean_return:.1f}."
    refs = (
        {}
        if info.ref_scores is None
        else dict(zip(("ref_min_score", "ref_max_score"), info.ref_scores, strict=True))
    )
    metadata = {
        "algorithm_name": info.algorithm_name,
        "author": info.author,
        "author_email": info.author_email,
        "code_permalink": info.code_permalink,
        "description": f"{info.description} {note}".strip(),
        **refs,
    }
    _write(dataset_id, episodes, env_config.name, metadata, {BEHAVIOUR_RETURN_KEY: mean_return}, data_path)
    return CollectionReport(
        dataset_id=dataset_id, n_transitions=n_transitions, n_episodes=len(episodes), mean_return=mean_return
    )


def _write(
    dataset_id: str,
    episodes: list[dict[str, Any]],
    env_name: str,
    metadata: dict[str, Any],
    extra: dict[str, Any],
    data_path: str | None,
) -> None:
    """Writes ``episodes`` as the Minari dataset ``dataset_id``, with its standard ``metadata`` and the
    ``extra`` keys."""
    minari = _minari()
    buffers = [minari.data_collector.EpisodeBuffer(**episode) for episode in episodes]
    with datasets_path(data_path), warnings.catch_warnings():
        # Minari advises on every optional field left empty (email, permalink, ...): the caller chose.
        warnings.filterwarnings("ignore", category=UserWarning, module="minari")
        spec = gym.spec(env_name)
        dataset = minari.create_dataset_from_buffers(dataset_id, buffers, env=spec, eval_env=spec, **metadata)
        dataset.storage.update_metadata(extra)


def _roll_out(
    policy: Policy[Obs, Act],
    env: Any,
    n_transitions: int,
    rng: np.random.Generator,
    epsilon: float,
    action_noise: float,
) -> tuple[list[dict[str, Any]], list[float]]:
    """Episodes as Minari's buffers (observations include the first and the final one) and the returns
    of the complete ones."""
    space = env.action_space
    episodes: list[dict[str, Any]] = []
    returns: list[float] = []
    obs = env.reset()
    start_episodes(policy, (True,))  # a recurrent policy's memory starts with each episode
    current: dict[str, list[Any]] = {k: [] for k in ("actions", "rewards", "terminations", "truncations")}
    current["observations"] = [obs]
    for t in range(n_transitions):
        act = _noisy(policy.sample(obs), space, rng, epsilon, action_noise)
        step, _ = env.step(act)
        for key, value in zip(
            ("observations", "actions", "rewards", "terminations", "truncations"),
            (step.obs, act, step.reward, step.is_terminated, step.is_truncated or t == n_transitions - 1),
            strict=True,
        ):
            current[key].append(value)
        if step.is_done:
            returns.append(float(np.sum(current["rewards"])))
        if step.is_done or t == n_transitions - 1:
            episodes.append({k: np.asarray(v) for k, v in current.items()})
            current = {k: [] for k in current}
            obs = step.obs if step.init_obs is None else step.init_obs
            current["observations"] = [obs]
            start_episodes(policy, (True,))
        else:
            obs = step.obs
    return episodes, returns


def _noisy(act: Act, space: Any, rng: np.random.Generator, epsilon: float, noise: float) -> Act:
    if isinstance(space, gym.spaces.Discrete):
        return np.asarray(rng.integers(space.n), dtype=np.int64) if rng.random() < epsilon else act
    if noise == 0.0:
        return act
    half = (space.high - space.low) / 2.0
    out: Act = np.clip(act + rng.normal(size=act.shape) * noise * half, space.low, space.high).astype(
        space.dtype
    )
    return out


def minari_columns(
    dataset: Any, gamma: float, reward_normalization: Literal["none", "return_range"] = "none"
) -> dict[str, npt.NDArray[Any]]:
    """A Minari dataset's episodes as transition columns (observation ``t`` and ``t + 1`` of each step,
    its action, reward, terminated and truncated flags, and ``discount = gamma``).

    ``return_range`` multiplies rewards by ``1000 / (max - min episode return)``, as the IQL paper and CORL
    do for locomotion datasets (over the complete episodes; unchanged when all returns are equal).

    Raises:
        ValueError: the dataset's observations or actions are not flat arrays, or it has no step.
    """
    parts: dict[str, list[npt.NDArray[Any]]] = {
        k: [] for k in ("obs", "next_obs", "act", "reward", "is_terminated", "is_truncated")
    }
    returns = []
    for episode in dataset.iterate_episodes():
        obs, rewards = (
            np.asarray(episode.observations),
            np.asarray(episode.rewards, dtype=np.float64).reshape(-1),
        )
        if obs.dtype == object or obs.ndim < 1:
            raise ValueError(f"{dataset.spec.dataset_id}: only Box observations are supported")
        parts["obs"].append(obs[:-1])
        parts["next_obs"].append(obs[1:])
        parts["act"].append(np.asarray(episode.actions))
        parts["reward"].append(rewards)
        parts["is_terminated"].append(np.asarray(episode.terminations, dtype=np.float32).reshape(-1))
        parts["is_truncated"].append(np.asarray(episode.truncations, dtype=np.float32).reshape(-1))
        if episode.terminations[-1] or episode.truncations[-1]:
            returns.append(float(rewards.sum()))
    if not parts["obs"]:
        raise ValueError(f"{dataset.spec.dataset_id} holds no episode")
    columns = {k: np.concatenate(v) for k, v in parts.items()}
    if reward_normalization == "return_range" and len(returns) > 1 and max(returns) > min(returns):
        columns["reward"] = columns["reward"] * (1000.0 / (max(returns) - min(returns)))
    columns["discount"] = np.full(len(columns["reward"]), gamma, dtype=np.float32)
    return columns


@attrs.frozen(kw_only=True)
class MinariDatasetConfig:
    """Config of a local Minari dataset as an offline `ArrayDataset`.

    Examples:
        >>> MinariDatasetConfig(dataset_id="pendulum-medium-v0").gamma
        0.99
    """

    dataset_id: str = attrs.field(validator=attrs.validators.min_len(1))
    """Minari's id, e.g. ``pendulum-medium-v0``."""
    gamma: float = attrs.field(default=0.99, validator=[attrs.validators.ge(0.0), attrs.validators.le(1.0)])
    """Unitless, per env step: each transition's bootstrap discount."""
    reward_normalization: Literal["none", "return_range"] = "none"
    """``return_range``: rewards times ``1000 / (max - min episode return)`` (IQL, CORL)."""
    data_path: str | None = None
    """The datasets' directory; ``None``: ``MINARI_DATASETS_PATH`` (or Minari's default)."""

    def directory(self) -> Path:
        """Where the dataset's files are: ``data_path`` (else ``MINARI_DATASETS_PATH``, else Minari's
        default ``~/.minari/datasets``) / ``dataset_id``."""
        root = self.data_path or os.environ.get("MINARI_DATASETS_PATH") or "~/.minari/datasets"
        return Path(root).expanduser() / self.dataset_id

    def load(self) -> Any:
        """The ``minari.MinariDataset``.

        Raises:
            FileNotFoundError: no such local dataset (the message names where it was looked for); nothing
                is created looking for it.
            ValueError: the dataset's files are unreadable (truncated, say), the directory named; or its
                metadata would have Minari build an env from code it names
                (`border_py.dataset_trust.refuse_code`).
        """
        minari = _minari()
        where = self.directory()
        if not (where / "data").is_dir():  # before Minari, which creates the datasets directory
            raise FileNotFoundError(
                f"Dataset {self.dataset_id} not found locally: no {where / 'data'} (the zoo's datasets are "
                "built by `make datasets`)"
            )
        refuse_code(where / "data" / "metadata.json")  # a dataset is data: Minari may build no env it names
        damaged = (OSError, KeyError, ValueError, RuntimeError)  # h5py says some damage as RuntimeError
        with datasets_path(self.data_path), self._unreadable(where, damaged):
            return minari.load_dataset(self.dataset_id)

    @contextlib.contextmanager
    def _unreadable(self, where: Path, errors: tuple[type[Exception], ...]) -> Iterator[None]:
        """Turns ``errors`` (h5py's and Minari's on damaged files) into one naming the dataset's files."""
        try:
            yield
        except errors as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise ValueError(
                f"dataset {self.dataset_id}: the files in {where / 'data'} are unreadable ({exc}); "
                "truncated or damaged: build the dataset again"
            ) from exc

    def build(self, seed: int) -> ArrayDataset:
        """The dataset's transitions, sampled with ``seed``.

        Raises:
            FileNotFoundError, ValueError: see `load`; ValueError also for data that is not flat
                arrays.
        """
        dataset = self.load()
        with self._unreadable(self.directory(), (OSError, KeyError, RuntimeError)):
            columns = minari_columns(dataset, self.gamma, self.reward_normalization)
        return ArrayDataset(columns, seed, source=f"Minari dataset {self.dataset_id}")

    def metadata(self) -> dict[str, Any]:
        """The dataset's metadata (the behaviour policy's mean return under ``behaviour_mean_return`` for
        datasets made by `collect`)."""
        metadata: dict[str, Any] = self.load().storage.metadata
        return metadata


def observation_stats(dataset: ArrayDataset, eps: float = 1e-3) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """The mean and standard deviation of ``dataset``'s observations, per component (the std floored at
    ``eps``): what an offline agent with ``normalize_obs`` divides by."""
    obs = dataset.storage.obs[: len(dataset)].astype(np.float64)
    return obs.mean(axis=0), np.maximum(obs.std(axis=0), eps)


@attrs.frozen(kw_only=True)
class PrefilledReplayBufferConfig:
    """A `SimpleReplayBuffer` that starts with a dataset's transitions
    (the oldest overwritten first once it is full): AWAC's online fine-tuning keeps learning from the
    offline data.

    Examples:
        >>> PrefilledReplayBufferConfig(capacity=1000, dataset=MinariDatasetConfig(dataset_id="x")).capacity
        1000
    """

    capacity: int = attrs.field(validator=attrs.validators.gt(0))
    """In transitions: the buffer's capacity (the dataset's transitions count towards it)."""
    dataset: MinariDatasetConfig
    """The transitions it starts with (their ``discount`` is the dataset config's ``gamma``)."""

    def build(self, seed: int) -> SimpleReplayBuffer:
        """The buffer, filled with the dataset's transitions in their order."""
        buffer = SimpleReplayBufferConfig(capacity=self.capacity).build(seed)
        c = minari_columns(self.dataset.load(), self.dataset.gamma, self.dataset.reward_normalization)
        for i in range(len(c["reward"])):
            buffer.push(
                Transition(
                    obs=c["obs"][i].astype(np.float32),
                    act=c["act"][i],
                    next_obs=c["next_obs"][i].astype(np.float32),
                    reward=float(c["reward"][i]),
                    is_terminated=bool(c["is_terminated"][i]),
                    is_truncated=bool(c["is_truncated"][i]),
                    discount=float(c["discount"][i]),
                )
            )
        return buffer
