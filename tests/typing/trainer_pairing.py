"""Typing test (mypy checks this file; pytest does not collect it).

``Trainer[E, P, R]`` must accept a step processor whose items are what the replay buffer stores, and an agent
that learns from the buffer's batches, and reject every mismatch. Each ``# type: ignore[code]`` below marks a
line that must fail: under ``warn_unused_ignores`` an ignore that is not needed is itself an error, so this
file fails the type check if a mismatch is ever accepted.
"""

from __future__ import annotations

from typing import TypeAlias, assert_type

from border_py import (
    AnyEnv,
    ArrayDatasetConfig,
    AtariEnvConfig,
    AtariVecEnvConfig,
    BufferedRecorder,
    DatasetBuffer,
    DefaultEvaluatorConfig,
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
    FrameTransition,
    GymEnvConfig,
    GymVecEnvConfig,
    NStepStepProcessorConfig,
    OfflineTrainer,
    Rollout,
    RolloutBufferConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    StepProcessor,
    Trainer,
    TrainerConfig,
    TrainerOf,
    TrainingBuffer,
    Transition,
    TransitionBatch,
)
from border_py.agents import Dqn, DqnConfig, Iqn, IqnConfig, Ppo, PpoConfig, Sac, SacConfig
from border_py.base import Spaces
from border_py.envs import Act, Frames, Obs
from border_py.testing import (
    CountingEnvConfig,
    FakeAgent,
    FakeItem,
    ListBufferConfig,
    ListDatasetConfig,
    RecordingStepProcessorConfig,
    ScriptedEvaluator,
)

config = TrainerConfig(max_opts=1)

# --- the right pairings pass, and bind one item type and one batch type ---------------------------
gym_trainer = Trainer(
    config, GymEnvConfig(name="CartPole-v1"), SimpleStepProcessorConfig(), SimpleReplayBufferConfig()
)
assert_type(
    gym_trainer,
    Trainer[
        AnyEnv[Obs, Act], StepProcessor[Obs, Act, Transition], TrainingBuffer[Transition, TransitionBatch]
    ],
)
dqn = Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
gym_evaluator = DefaultEvaluatorConfig().build(GymEnvConfig(name="CartPole-v1").build(0))
gym_trainer.train(dqn, BufferedRecorder(), gym_evaluator)

# n-step transitions are Transitions too; IQN and SAC learn from the same batches as DQN.
nstep_trainer = Trainer(
    config, GymEnvConfig(name="Pendulum-v1"), NStepStepProcessorConfig(), SimpleReplayBufferConfig()
)
assert_type(
    nstep_trainer,
    Trainer[
        AnyEnv[Obs, Act], StepProcessor[Obs, Act, Transition], TrainingBuffer[Transition, TransitionBatch]
    ],
)
sac = Sac(SacConfig(), GymEnvConfig(name="Pendulum-v1").build(0).spaces, seed=0)
nstep_trainer.train(sac, BufferedRecorder())
gym_trainer.train(Iqn(IqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0), BufferedRecorder())

# A vector env of CartPole binds the same types as the single env: one trainer type for both.
vec_trainer = Trainer(
    config,
    GymVecEnvConfig(name="CartPole-v1", num_envs=4),
    SimpleStepProcessorConfig(),
    SimpleReplayBufferConfig(),
)
assert_type(
    vec_trainer,
    Trainer[
        AnyEnv[Obs, Act], StepProcessor[Obs, Act, Transition], TrainingBuffer[Transition, TransitionBatch]
    ],
)
vec_trainer.train(dqn, BufferedRecorder(), gym_evaluator)

fake_trainer = Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), ListBufferConfig())
assert_type(
    fake_trainer,
    Trainer[AnyEnv[int, int], StepProcessor[int, int, FakeItem], TrainingBuffer[FakeItem, list[FakeItem]]],
)
fake_trainer.train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))

# --- a step processor whose items differ from the buffer's is rejected ----------------------------
Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), SimpleReplayBufferConfig())  # type: ignore[misc]
Trainer(config, GymEnvConfig(name="x"), SimpleStepProcessorConfig(), ListBufferConfig())  # type: ignore[misc]
Trainer(config, GymVecEnvConfig(name="x", num_envs=2), SimpleStepProcessorConfig(), ListBufferConfig())  # type: ignore[misc]

# --- a step processor that cannot read the env's observations is rejected --------------------------
Trainer(config, CountingEnvConfig(), SimpleStepProcessorConfig(), SimpleReplayBufferConfig())  # type: ignore[misc]

# --- an agent that learns from other batches, or acts on other observations, is rejected -----------
gym_trainer.train(FakeAgent(), BufferedRecorder())  # type: ignore[arg-type]
fake_trainer.train(dqn, BufferedRecorder())  # type: ignore[arg-type]
fake_trainer.train(sac, BufferedRecorder())  # type: ignore[arg-type]

# --- an evaluator for another env is rejected --------------------------------------------------------
gym_trainer.train(dqn, BufferedRecorder(), ScriptedEvaluator([1.0]))  # type: ignore[arg-type]

# --- a trainer factory annotated with TrainerOf keeps both checks ------------------------------------
# (``Trainer[Any, Any, Any]`` would accept every line below that must fail.)


def make_gym_trainer() -> TrainerOf[Obs, Act, Transition, TransitionBatch]:
    return Trainer(
        config, GymEnvConfig(name="CartPole-v1"), SimpleStepProcessorConfig(), SimpleReplayBufferConfig()
    )


def make_mismatched_trainer() -> TrainerOf[Obs, Act, Transition, TransitionBatch]:
    return Trainer(config, GymEnvConfig(name="x"), SimpleStepProcessorConfig(), ListBufferConfig())  # type: ignore[arg-type]


def make_fake_trainer() -> TrainerOf[int, int, FakeItem, list[FakeItem]]:
    return Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), ListBufferConfig())


def make_wrongly_annotated_trainer() -> TrainerOf[Obs, Act, Transition, TransitionBatch]:
    return Trainer(config, CountingEnvConfig(), RecordingStepProcessorConfig(), ListBufferConfig())  # type: ignore[arg-type]


make_gym_trainer().train(dqn, BufferedRecorder(), gym_evaluator)
make_gym_trainer().train(FakeAgent(), BufferedRecorder())  # type: ignore[arg-type]
make_fake_trainer().train(FakeAgent(), BufferedRecorder())
make_fake_trainer().train(dqn, BufferedRecorder())  # type: ignore[arg-type]
GymTrainer: TypeAlias = TrainerOf[Obs, Act, Transition, TransitionBatch]
gym_trainers: list[GymTrainer] = [make_gym_trainer()]
gym_trainers[0].train(sac, BufferedRecorder())
gym_trainers[0].train(FakeAgent(), BufferedRecorder())  # type: ignore[arg-type]

# --- the offline trainer binds the dataset's batches to the agent -------------------------------------
offline = OfflineTrainer(config, ArrayDatasetConfig(path="data.npz"))
assert_type(offline, OfflineTrainer[DatasetBuffer[TransitionBatch]])
offline.train(dqn, BufferedRecorder(), gym_evaluator)
offline.train(FakeAgent(), BufferedRecorder())  # type: ignore[arg-type]
fake_offline = OfflineTrainer(config, ListDatasetConfig())
fake_offline.train(FakeAgent(), BufferedRecorder(), ScriptedEvaluator([1.0]))
fake_offline.train(dqn, BufferedRecorder())  # type: ignore[arg-type]
fake_offline.train(FakeAgent(), BufferedRecorder(), gym_evaluator)  # type: ignore[misc]

# --- on-policy: a rollout buffer's batches are Rollouts, which PPO reads and off-policy agents do not --
ppo = Ppo(PpoConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0)
rollout_trainer = Trainer(
    config,
    GymVecEnvConfig(name="CartPole-v1", num_envs=8),
    SimpleStepProcessorConfig(),
    RolloutBufferConfig(n_steps=32, num_envs=8),
)
assert_type(
    rollout_trainer,
    Trainer[AnyEnv[Obs, Act], StepProcessor[Obs, Act, Transition], TrainingBuffer[Transition, Rollout]],
)
rollout_trainer.train(ppo, BufferedRecorder(), gym_evaluator)
rollout_trainer.train(dqn, BufferedRecorder())  # type: ignore[arg-type]
rollout_trainer.train(sac, BufferedRecorder())  # type: ignore[arg-type]
gym_trainer.train(ppo, BufferedRecorder())  # type: ignore[arg-type]

# --- Atari: frame items pair with the frame buffer only, and the pixel env only with the frame processor ---
atari_trainer = Trainer(
    config,
    AtariVecEnvConfig(num_envs=4),
    FrameStackStepProcessorConfig(),
    FrameReplayBufferConfig(capacity=1_000, streams=4),
)
assert_type(
    atari_trainer,
    Trainer[
        AnyEnv[Frames, Act],
        StepProcessor[Frames, Act, FrameTransition],
        TrainingBuffer[FrameTransition, TransitionBatch],
    ],
)
atari_trainer.train(Dqn(DqnConfig(), Spaces(obs_shape=(4,), n_actions=2), seed=0), BufferedRecorder())
Trainer(config, AtariEnvConfig(), FrameStackStepProcessorConfig(), SimpleReplayBufferConfig())  # type: ignore[misc]
Trainer(config, AtariEnvConfig(), SimpleStepProcessorConfig(), FrameReplayBufferConfig())  # type: ignore[misc]
