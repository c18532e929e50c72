"""The experiment: one config composing every component of a run, so that a run is data.

An `Experiment` (online, on-policy, or asynchronous with ``distributed``) or an
`OfflineExperiment` names the configs of its env, step processor, buffer (or dataset), agent,
trainer and evaluator. Every one of them builds its component, the agent from the evaluation env's
`Spaces` and the run's seed, so no experiment needs a hand-written factory. Built
in Python, mypy binds the pairing as for `Trainer`: a step processor whose items the
buffer cannot store, or an agent that cannot read the env's observations, is a type error. Read from YAML
(`border_py.run.codec`), the same pairings are checked when the experiment is made
(`check_pairing`).

Examples:
    >>> from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig
    >>> from border_py import TrainerConfig
    >>> from border_py.agents import DqnConfig
    >>> experiment = Experiment(
    ...     env=GymEnvConfig(name="CartPole-v1"),
    ...     step_processor=NStepStepProcessorConfig(),
    ...     replay_buffer=SimpleReplayBufferConfig(capacity=1000),
    ...     agent=DqnConfig(),
    ...     trainer=TrainerConfig(max_opts=10),
    ... )
    >>> experiment.algo, experiment.env_id
    ('dqn', 'CartPole-v1')
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Generic, Protocol

import attrs

from border_py.base.agent import Agent
from border_py.base.builder import AgentBuilder, Builder, SeededBuilder
from border_py.base.env import AnyEnv, Env
from border_py.base.replay_buffer import TrainingBuffer
from border_py.base.spaces import HasSpaces, Spaces
from border_py.base.step_processor import StepProcessor
from border_py.base.sync_model import ActingAgent
from border_py.base.typevars import A, B, I, O, O_co, T_co
from border_py.distributed.config import AsyncConfig
from border_py.evaluator import DefaultEvaluator, DefaultEvaluatorConfig
from border_py.run.pairing import check_pairing
from border_py.run.tags import TAGS
from border_py.trainer.config import TrainerConfig

if TYPE_CHECKING:  # the buffers hold tensors: an experiment, which is data, imports no torch
    from border_py.replay_buffer import ArrayDataset, TransitionBatch


class EvalEnv(Env[O_co, A], HasSpaces, Protocol[O_co, A]):
    """An env that evaluates, and declares the spaces the agent is built from."""


class EnvConfig(Protocol[O_co, A]):
    """A training env's config: builds the env (or vector env) and names its evaluation env's config."""

    def build(self, seed: int) -> AnyEnv[O_co, A]:
        """The training env, seeded."""
        ...

    def evaluation(self) -> SeededBuilder[EvalEnv[O_co, A]]:
        """The evaluation env's config (one sub-env of a vector env; whole Atari games)."""
        ...


class OfflineAgentBuilder(Protocol[T_co]):
    """An offline agent's config: built like any agent, with the dataset's observation statistics."""

    def build(self, spaces: Spaces, seed: int, obs_stats: Any = None) -> T_co:
        """The agent; ``obs_stats``: the dataset's observation mean and std (``normalize_obs``)."""
        ...


def _positive(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"'{attribute.name}' must be an integer >= 1, got {value!r}")


def _env_id(env: object) -> str:
    """The env's id for names and directories: a Gymnasium id, an Atari game, or the config's class."""
    inner = getattr(env, "env", None)
    for source in (env, inner):
        for field in ("name", "game"):
            value = getattr(source, field, None)
            if isinstance(value, str):
                return value
    return type(env).__name__.removesuffix("Config")


def _algo(agent: object) -> str:
    """The agent's tag (``recurrent_ppo``); a config of one's own: its class's name, lower case, without
    ``Config``."""
    cls = type(agent)
    for tag, path in TAGS["agent"].items():
        if path.rpartition(":")[2] == cls.__name__ and cls.__module__.startswith("border_py."):
            return tag
    return cls.__name__.removesuffix("Config").lower()


@attrs.frozen(kw_only=True)
class Experiment(Generic[O, A, I, B]):
    """An online run: the env, the step processor that turns its steps into items, the buffer that stores
    them, the agent that learns from the buffer's batches, the schedule and the evaluation; with
    ``distributed``, the env steps come from actors on Ray (off-policy agents only).

    Raises:
        ValueError: the components do not pair (the step processor's items are not the buffer's, the
            agent cannot learn from the buffer's batches), or a rollout buffer with ``distributed``.
    """

    env: EnvConfig[O, A]
    """The training env (a vector env for several sub-envs); the evaluation env is its ``evaluation()``."""
    step_processor: Builder[StepProcessor[O, A, I]]
    """Turns each env step into the items the buffer stores."""
    replay_buffer: SeededBuilder[TrainingBuffer[I, B]]
    """Stores the items and samples batches (a rollout buffer for on-policy agents)."""
    agent: AgentBuilder[Agent[O, A, B]]
    """The agent, built from the evaluation env's spaces and ``trainer.seed``."""
    trainer: TrainerConfig
    """The schedule, the seed and the model directory."""
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig()
    """The greedy evaluation every ``trainer.eval_interval`` opt steps."""
    distributed: AsyncConfig | None = None
    """Actors on Ray collect the env steps (`AsyncTrainer`); ``None``: this
    process does."""
    init_from: str | None = None
    """A saved model (``runs/awac/best``) the agent starts from, as in fine-tuning an offline agent online;
    ``None``: fresh weights. A resumed run continues from its checkpoint instead."""
    torch_threads: int = attrs.field(default=1, validator=_positive)
    """Torch intra-op threads. 1 keeps the other core for the env; 2 trains 256x256 networks faster on an
    otherwise idle 2-core machine."""

    def __attrs_post_init__(self) -> None:
        check_pairing(self.step_processor, self.replay_buffer)
        _refuse_frame_replay_across_lives(self.env, self.step_processor)

    @property
    def algo(self) -> str:
        """The agent's name (``dqn``, ``sac``...), from its config's class."""
        return _algo(self.agent)

    @property
    def env_id(self) -> str:
        """The env's id (``CartPole-v1``; ``pong`` for an Atari game)."""
        return _env_id(self.env)

    def eval_env(self) -> SeededBuilder[EvalEnv[O, A]]:
        """The evaluation env's config."""
        return self.env.evaluation()

    def actor_agent_factory(self, spaces: Spaces) -> functools.partial[ActingAgent[O, A]]:
        """What an asynchronous actor builds its acting copy with, from its seed: the agent config itself
        (it pickles to the actor processes; no second hand-written function)."""
        return functools.partial(_build_actor, self.agent, spaces)


def _refuse_frame_replay_across_lives(env: object, step_processor: object) -> None:
    """An Atari env whose episodes end at a lost life (``episodic_life``) starts the next one mid-game, its
    frame stack full of the game's frames: the frame replay buffer rebuilds every episode's first stack
    with zeros, so the pair is refused before the run starts rather than at the first lost life.

    Raises:
        ValueError: naming the field.
    """
    from border_py.step_processor import FrameStackStepProcessorConfig

    if not isinstance(step_processor, FrameStackStepProcessorConfig):
        return
    from border_py.envs.atari import AtariEnvConfig, AtariVecEnvConfig

    game, field = (env.env, "env.env") if isinstance(env, AtariVecEnvConfig) else (env, "env")
    if isinstance(game, AtariEnvConfig) and game.episodic_life:
        raise ValueError(
            f"{field}.episodic_life: true ends an episode at each lost life with the game going on, "
            "which the frame replay buffer (step_processor: frame_stack) cannot rebuild; train with "
            "episodic_life: false, or with a rollout buffer (PPO, A2C)"
        )


def _build_actor(agent: AgentBuilder[Any], spaces: Spaces, seed: int) -> Any:
    return agent.build(spaces, seed)


@attrs.frozen(kw_only=True)
class OfflineExperiment(Generic[O, A]):
    """An offline run: a fixed dataset, the agent that learns from it, the schedule, and the env the agent
    is evaluated in (no env steps are trained on)."""

    env: SeededBuilder[EvalEnv[O, A]]
    """The evaluation env; the agent is built from its spaces."""
    dataset: SeededBuilder[ArrayDataset]
    """The dataset of transitions (a local Minari dataset)."""
    agent: OfflineAgentBuilder[Agent[O, A, TransitionBatch]]
    """The agent, built from the evaluation env's spaces, ``trainer.seed`` and the dataset's statistics."""
    trainer: TrainerConfig
    """The schedule (``max_opts``, intervals), the seed and the model directory."""
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig()
    """The greedy evaluation every ``trainer.eval_interval`` opt steps."""
    torch_threads: int = attrs.field(default=1, validator=_positive)
    """Torch intra-op threads."""

    @property
    def algo(self) -> str:
        """The agent's name (``iql``, ``bc``...), from its config's class."""
        return _algo(self.agent)

    @property
    def env_id(self) -> str:
        """The dataset's id (``pendulum-medium-v0``), else the evaluation env's."""
        dataset_id = getattr(self.dataset, "dataset_id", None)
        return dataset_id if isinstance(dataset_id, str) else _env_id(self.env)

    def eval_env(self) -> SeededBuilder[EvalEnv[O, A]]:
        """The evaluation env's config."""
        return self.env


AnyExperiment = Experiment[Any, Any, Any, Any] | OfflineExperiment[Any, Any]
"""Either kind of experiment, as the run layer takes them from YAML."""


def eval_seed(experiment: AnyExperiment) -> int:
    """The evaluation env's seed: ``trainer.seed + 1``, apart from the training env's (and from an
    asynchronous actor's, ``trainer.seed + 1000 * (i + 1)``)."""
    return experiment.trainer.seed + 1


def build_eval_env(experiment: AnyExperiment) -> Any:
    """The experiment's evaluation env, built with `eval_seed`: in training, evaluation, videos and
    export alike."""
    return experiment.eval_env().build(eval_seed(experiment))


def build_evaluator(experiment: AnyExperiment, eval_env: Any) -> DefaultEvaluator[Any, Any]:
    """The experiment's evaluator over ``eval_env`` (from `build_eval_env`), building more envs of the same
    config and seed for the episodes it plays side by side; close it when done."""
    return experiment.evaluator.build(eval_env, make_env=lambda: build_eval_env(experiment))


def with_trainer(experiment: AnyExperiment, **changes: Any) -> AnyExperiment:
    """``experiment`` with its ``trainer`` fields changed.

    Raises:
        ValueError, TypeError: a changed field is refused by ``TrainerConfig``'s validators.
    """
    return attrs.evolve(experiment, trainer=attrs.evolve(experiment.trainer, **changes))
