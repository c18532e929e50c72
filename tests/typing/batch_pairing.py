"""Typing test (mypy checks this file; pytest does not collect it).

The push side of a buffer consumes items, and ``ReplayBuffer`` is covariant in the batches an agent
consumes: a buffer stores the items of a step processor emitting its item class or a subclass; an agent
learns from a buffer whose batches are its own batch class, a subclass of it, or satisfy the ``Protocol``
it is typed against (`TransitionBatchLike`), and from no other. ``tests/unit/test_pairing.py`` checks that
the run layer's pairing check (an experiment read from YAML) judges the same components
(``tests/pairing_cases.py``) alike. Each ``# type: ignore[code]`` marks a line that must fail
(``warn_unused_ignores`` makes an accepted mismatch an error).
"""

from __future__ import annotations

from typing import assert_type

from border_py import (
    AnyEnv,
    BufferedRecorder,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    StepProcessor,
    Trainer,
    TrainerConfig,
    TrainingBuffer,
    Transition,
    TransitionBatch,
    TransitionBatchLike,
)
from border_py.envs import Act, Obs
from border_py.run import Experiment
from tests.pairing_cases import (
    BaseAgent,
    FloatRewardBatch,
    IntRewardsAgent,
    LikeAgent,
    LikeAgentConfig,
    ReturnsAgent,
    ReturnsAgentConfig,
    TaggedAgent,
    TaggedBatch,
    TaggedBufferConfig,
    TaggedProcessorConfig,
    TaggedStoreConfig,
)

config = TrainerConfig(max_opts=1)
env = GymEnvConfig(name="CartPole-v1")
plain = Trainer(config, env, SimpleStepProcessorConfig(), SimpleReplayBufferConfig())
tagged = Trainer(config, env, SimpleStepProcessorConfig(), TaggedBufferConfig())
assert_type(
    tagged,
    Trainer[AnyEnv[Obs, Act], StepProcessor[Obs, Act, Transition], TrainingBuffer[Transition, TaggedBatch]],
)

# --- items: a subclass of what the buffer stores is stored; a base class of it is not --------------------
Trainer(config, env, TaggedProcessorConfig(), SimpleReplayBufferConfig())
Trainer(config, env, TaggedProcessorConfig(), TaggedStoreConfig())
Trainer(config, env, SimpleStepProcessorConfig(), TaggedStoreConfig())  # type: ignore[misc]

# --- the sampled batch satisfies the agent's Protocol: accepted -----------------------------------------
plain.train(LikeAgent(), BufferedRecorder())
tagged.train(LikeAgent(), BufferedRecorder())
like = Experiment(
    env=env,
    step_processor=NStepStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=LikeAgentConfig(),
    trainer=config,
)
assert_type(like, Experiment[Obs, Act, Transition, TransitionBatch])

# --- the agent learns from a subclass of the sampled batch: refused --------------------------------------
plain.train(TaggedAgent(), BufferedRecorder())  # type: ignore[arg-type]

# --- the agent learns from a base class of the sampled batch (or the batch itself): accepted -------------
tagged.train(BaseAgent(), BufferedRecorder())
tagged.train(TaggedAgent(), BufferedRecorder())

# --- the agent's Protocol wants a member the sampled batch lacks, or another type of it: refused --------
plain.train(ReturnsAgent(), BufferedRecorder())  # type: ignore[arg-type]
plain.train(IntRewardsAgent(), BufferedRecorder())  # type: ignore[arg-type]
returns = Experiment(  # type: ignore[misc]
    env=env,
    step_processor=NStepStepProcessorConfig(),
    replay_buffer=SimpleReplayBufferConfig(),
    agent=ReturnsAgentConfig(),
    trainer=config,
)


# --- TransitionBatchLike: TransitionBatch and its subclasses are one; a batch with a float reward is not --


def batches_are_like(
    batch: TransitionBatch, tagged: TaggedBatch
) -> tuple[TransitionBatchLike, TransitionBatchLike]:
    return batch, tagged


def float_rewards_are_not_like(batch: FloatRewardBatch) -> TransitionBatchLike:
    return batch  # type: ignore[return-value]
