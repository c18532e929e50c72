"""The component tags of an experiment file: which config class each ``type`` names.

``step_processor: {type: her}`` names `border_py.her.HerStepProcessorConfig`; a tag not listed here is an
import path (``package.module:Class``), which `border_py.run.codec` imports only for trusted code.
"""

from __future__ import annotations

TAGS: dict[str, dict[str, str]] = {
    "env": {
        "gym": "border_py.envs:GymEnvConfig",
        "gym_vec": "border_py.envs:GymVecEnvConfig",
        "atari": "border_py.envs:AtariEnvConfig",
        "atari_vec": "border_py.envs:AtariVecEnvConfig",
    },
    "step_processor": {
        "nstep": "border_py.step_processor:NStepStepProcessorConfig",
        "simple": "border_py.step_processor:SimpleStepProcessorConfig",
        "frame_stack": "border_py.step_processor:FrameStackStepProcessorConfig",
        "her": "border_py.her:HerStepProcessorConfig",
    },
    "replay_buffer": {
        "simple": "border_py.replay_buffer:SimpleReplayBufferConfig",
        "rollout": "border_py.replay_buffer:RolloutBufferConfig",
        "frames": "border_py.replay_buffer:FrameReplayBufferConfig",
        "prefilled": "border_py.datasets:PrefilledReplayBufferConfig",
    },
    "agent": {
        **{
            name: f"border_py.agents:{name.capitalize()}Config"
            for name in ("dqn", "iqn", "sac", "td3", "ppo", "bc", "iql", "awac", "cql")
        },
        "td3bc": "border_py.agents:Td3BcConfig",
        "a2c": "border_py.agents:A2cConfig",
        "qrdqn": "border_py.agents:QrDqnConfig",
        "tqc": "border_py.agents:TqcConfig",
        "crossq": "border_py.agents:CrossQConfig",
        "recurrent_ppo": "border_py.agents:RecurrentPpoConfig",
    },
    "dataset": {"minari": "border_py.datasets:MinariDatasetConfig"},
}
"""Each component's tags and the config class each names (``module:Class``)."""

DEFAULT_TAGS = {"env": "gym", "step_processor": "nstep", "replay_buffer": "simple", "dataset": "minari"}
"""The tag of a component whose ``type`` is omitted."""

PLAIN = {
    "trainer": "border_py.trainer.config:TrainerConfig",
    "evaluator": "border_py.evaluator:DefaultEvaluatorConfig",
    "distributed": "border_py.distributed.config:AsyncConfig",
}
"""Fields that take one config class, with no tag."""
