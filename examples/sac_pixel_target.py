"""SAC on a dict observation with an image: border_py's env ``border_py/PixelTarget-v0``, whose observation
is ``{"image": (36, 36, 1) uint8, "offset": (1,)}``, as the zoo's ``sac`` entry for it, as a program.

    python -m examples.sac_pixel_target --train     # 3,000 env steps (~1 min), into runs/sac/...
    python -m examples.sac_pixel_target --eval      # the best model, greedy
    python -m examples.sac_pixel_target --export    # numpy and ONNX policies that take the dict

The target is where a lit column lies across the image, moved by the offset: the agent has to read both.
``encoder=MultiInputConfig(...)`` puts a multi-input encoder in front of the policy and of the critics
(each its own, as SB3's off-policy ``MultiInputPolicy``): a Nature CNN and a linear layer of 64 features
for the image, the offset beside them. Without it SAC refuses the env, naming the image part.
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    NStepStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
)
from border_py.agents import MultiInputConfig, SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="border_py/PixelTarget-v0"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=10_000),
    agent=SacConfig(
        encoder=MultiInputConfig(image_features=64),
        actor_hidden=(64, 64),
        critic_hidden=(64, 64),
        actor_lr=1e-3,
        critic_lr=1e-3,
        alpha_lr=1e-3,
        batch_size=64,
        tau=0.005,
    ),
    trainer=TrainerConfig(
        max_env_steps=3_000,
        warmup_period=200,
        eval_interval=500,
        record_interval=500,
        save_interval=1_500,
        checkpoint_buffer=True,
        keep_checkpoints=None,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=100),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
