"""PPO on Atari Pong from pixels with RL Zoo's Atari settings: the zoo's ``ppo`` entry for ALE/Pong-v5 (the
atari extra).

    python -m examples.ppo_atari --train                 # 2.5M env steps (10M frames): hours of one core
    python -m examples.ppo_atari --eval
    python -m examples.ppo_atari --train --model-dir runs/ppo/breakout/seed0 --set env.env.game=breakout \
        env.env.episodic_life=true env.env.fire_after_life_loss=true   # the zoo's Breakout entry

The same run as ``border-py train ppo --env ALE/Pong-v5``: DeepMind's preprocessing (ale-py's vector env: 8
games stepping together, 4 stacked 84x84 frames, 30 no-op starts, rewards clipped), rollouts of 128 steps
of the 8 games (1,024 transitions, one opt step each), 4 epochs of minibatches of 256, the learning rate
(2.5e-4) and the clip range (0.1) both falling linearly over RL Zoo's 10M agent steps (so at 75% of their
start when the budget ends), entropy bonus 0.01; SB3's
CnnPolicy: the Nature CNN and one 512-unit ReLU layer, shared by the policy and the value.
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    RolloutBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import NatureCnnConfig, PpoConfig
from border_py.envs import AtariEnvConfig, AtariVecEnvConfig
from border_py.run import Experiment, run_cli

# RL Zoo's schedules anneal over its 10M agent steps (40M frames); the budget here stops at a quarter of them.
GAMES, ROLLOUT, BUDGET, SCHEDULE = 8, 128, 2_500_000, 10_000_000

EXPERIMENT = Experiment(
    env=AtariVecEnvConfig(env=AtariEnvConfig(game="pong"), num_envs=GAMES),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=GAMES),
    agent=PpoConfig(
        encoder=NatureCnnConfig(),
        hidden=(512,),
        activation="relu",
        lr=2.5e-4,
        lr_schedule="linear",
        clip_range=0.1,
        clip_schedule="linear",
        schedule_env_steps=SCHEDULE,
        n_epochs=4,
        batch_size=256,
        ent_coef=0.01,
    ),
    trainer=TrainerConfig(
        max_env_steps=BUDGET,
        opt_interval=ROLLOUT * GAMES,
        eval_interval=49,
        record_interval=5,
        save_interval=49,
        checkpoint_buffer=True,
        keep_checkpoints=2,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=3),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
