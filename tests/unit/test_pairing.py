"""The run layer's pairing check judges as mypy does (``tests/typing/batch_pairing.py``, the same
components from ``tests/pairing_cases.py``): subclasses by the variance of each side, ``Protocol`` batches
by their members, generics through their origin and type variables."""

from __future__ import annotations

import re
from typing import Any, Generic

import pytest

from border_py import (
    BufferedRecorder,
    ConfigError,
    NStepStepProcessorConfig,
    ReplayBuffer,
    SimpleReplayBufferConfig,
    TransitionBatch,
    TransitionBatchLike,
)
from border_py.base.typevars import B
from border_py.run import load_experiment_text, prepare
from border_py.run.pairing import check_agent_batches, check_pairing, refusal
from border_py.testing import FakeAgent, ListBufferConfig, RecordingStepProcessorConfig
from tests.pairing_cases import (
    BaseAgent,
    FloatRewardBatch,
    Greedy,
    IntRewardsAgent,
    LikeAgent,
    ReturnsAgent,
    TaggedAgent,
    TaggedBatch,
    TaggedBufferConfig,
    TaggedProcessorConfig,
    TaggedStoreConfig,
)


class GenericAgent(Greedy, Generic[B]):
    """Learns from the batches ``B`` a subclass or an instance binds."""

    def opt(self, buffer: ReplayBuffer[B]) -> None:
        return None


class LikeGenericAgent(GenericAgent[TransitionBatchLike]):
    pass


class TaggedGenericAgent(GenericAgent[TaggedBatch]):
    pass


@pytest.mark.parametrize(
    ("agent", "buffer"),
    [
        (LikeAgent(), SimpleReplayBufferConfig()),  # the sampled batch satisfies the agent's Protocol
        (LikeAgent(), TaggedBufferConfig()),  # ... and so does a subclass of it
        (BaseAgent(), TaggedBufferConfig()),  # the agent learns from a base class of the sampled batch
        (TaggedAgent(), TaggedBufferConfig()),
        (FakeAgent(), ListBufferConfig()),  # list[FakeItem] on both sides: equal, not identical
        (LikeGenericAgent(), SimpleReplayBufferConfig()),  # a type variable bound by a base class
        (GenericAgent[TransitionBatch](), TaggedBufferConfig()),  # ... and by the instance
        (GenericAgent(), SimpleReplayBufferConfig()),  # unbound: mypy infers it from the buffer
    ],
)
def test_an_agent_learning_from_the_sampled_batch_its_base_or_a_protocol_it_satisfies_is_accepted(
    agent: object, buffer: object
) -> None:
    check_agent_batches(agent, buffer)


@pytest.mark.parametrize(
    ("agent", "buffer", "message"),
    [
        (
            TaggedAgent(),
            SimpleReplayBufferConfig(),
            "agent TaggedAgent learns from TaggedBatch, but replay_buffer SimpleReplayBufferConfig samples "
            "TransitionBatch: TransitionBatch is not a subclass of TaggedBatch",
        ),
        (
            TaggedGenericAgent(),
            SimpleReplayBufferConfig(),
            "agent TaggedGenericAgent learns from TaggedBatch, but replay_buffer",
        ),
        (
            GenericAgent[TaggedBatch](),
            SimpleReplayBufferConfig(),
            "agent GenericAgent learns from TaggedBatch, but replay_buffer",
        ),
        (
            IntRewardsAgent(),
            SimpleReplayBufferConfig(),
            "TransitionBatch.reward is not what IntRewards wants: Tensor is not a subclass of int",
        ),
        (BaseAgent(), ListBufferConfig(), "samples list[FakeItem]: list[FakeItem] is not a subclass of"),
    ],
)
def test_an_agent_learning_from_a_subclass_of_the_sampled_batch_or_another_type_is_refused(
    agent: object, buffer: object, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check_agent_batches(agent, buffer)


def test_a_protocol_wanting_a_member_the_sampled_batch_lacks_is_refused_naming_it() -> None:
    with pytest.raises(
        ValueError, match=r"learns from HasReturns, .* TransitionBatch lacks 'returns', a member"
    ):
        check_agent_batches(ReturnsAgent(), SimpleReplayBufferConfig())


@pytest.mark.parametrize(
    ("step_processor", "buffer"),
    [
        (TaggedProcessorConfig(), SimpleReplayBufferConfig()),  # a subclass of what the buffer stores
        (TaggedProcessorConfig(), TaggedStoreConfig()),
        (RecordingStepProcessorConfig(), ListBufferConfig()),
    ],
)
def test_a_step_processor_emitting_what_the_buffer_stores_or_a_subclass_is_accepted(
    step_processor: object, buffer: object
) -> None:
    check_pairing(step_processor, buffer)


def test_a_step_processor_emitting_a_base_class_of_what_the_buffer_stores_is_refused() -> None:
    with pytest.raises(
        ValueError, match="emits Transition items, but replay_buffer TaggedStoreConfig stores"
    ):
        check_pairing(NStepStepProcessorConfig(), TaggedStoreConfig())


@pytest.mark.parametrize(
    ("value", "expected", "accepted"),
    [
        (ReplayBuffer[TaggedBatch], ReplayBuffer[TransitionBatch], True),  # covariant
        (ReplayBuffer[TransitionBatch], ReplayBuffer[TaggedBatch], False),
        (ReplayBuffer[TransitionBatch], ReplayBuffer[TransitionBatchLike], True),
        (list[TaggedBatch], list[TransitionBatch], False),  # invariant
        (TaggedBatch, TransitionBatch | None, True),
        (TransitionBatch | None, TransitionBatch, False),
        (TransitionBatchLike, TransitionBatch, False),
        (TransitionBatch, Any, True),
        (TransitionBatch, object, True),
        (FloatRewardBatch, TransitionBatchLike, False),  # a member of another type
        (TaggedBatch, TransitionBatchLike, True),
    ],
)
def test_refusal_follows_variance_unions_and_protocols(value: Any, expected: Any, accepted: bool) -> None:
    assert (refusal(value, expected) is None) == accepted


def test_a_batch_with_a_member_of_another_type_than_the_protocol_wants_is_refused_naming_both() -> None:
    assert refusal(FloatRewardBatch, TransitionBatchLike) == (
        "FloatRewardBatch.reward is not what TransitionBatchLike wants: float is not a subclass of Tensor"
    )


def _experiment_text(agent: str) -> str:
    return f"""
env: {{name: CartPole-v1}}
step_processor: {{gamma: 0.99}}
replay_buffer: {{capacity: 100}}
agent: {{type: "tests.pairing_cases:{agent}"}}
trainer: {{max_opts: 2, warmup_period: 10, eval_interval: 2}}
evaluator: {{n_episodes: 1}}
"""


def test_an_experiment_file_with_an_agent_typed_against_the_protocol_batch_is_trained() -> None:
    experiment = load_experiment_text(_experiment_text("LikeAgentConfig"))
    with prepare(experiment) as prepared:
        result = prepared.run(BufferedRecorder())
    assert result.opt_steps == 2


def test_an_experiment_file_with_an_agent_wanting_a_missing_member_is_refused_before_training() -> None:
    experiment = load_experiment_text(_experiment_text("ReturnsAgentConfig"))
    refusal_line = r"agent: agent ReturnsAgent learns from HasReturns.*lacks 'returns'"
    with pytest.raises(ConfigError, match=refusal_line), prepare(experiment):
        pass
