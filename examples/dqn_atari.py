"""DQN on Atari Pong with Dopamine's settings: the zoo's ``dqn`` entry for ALE/Pong-v5 (the atari extra).

    python -m examples.dqn_atari --train                         # 2M env steps: hours on a CPU
    python -m examples.dqn_atari --train --set agent.device=cuda           # on a CUDA machine
    python -m examples.dqn_atari --train --set env.env.game=breakout --model-dir runs/dqn/breakout/seed0

The same run as ``border-py train dqn --env ALE/Pong-v5``: DeepMind's preprocessing (ale-py's vector env: 4
games stepping together, 4 stacked 84x84 frames, 30 no-op starts, rewards clipped), the Nature CNN with a
512-unit layer, a replay of 1e6 frames (each frame stored once, stacks rebuilt at sampling), learning from
20,000 env steps, a batch of 32 every 4 env steps, the target copied every 2,000 opt steps (8,000 env
steps), epsilon from 1 to 0.01 over 250,000 env steps, Huber loss, Adam (lr 6.25e-5, eps 1.5e-4). The
buffer is not saved in checkpoints (7 GB): a resumed run warms up again.
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
    TrainerConfig,
)
from border_py.agents import DqnConfig, EpsilonGreedyConfig, NatureCnnConfig
from border_py.envs import AtariEnvConfig, AtariVecEnvConfig
from border_py.run import Experiment, run_cli

GAMES = 4

EXPERIMENT = Experiment(
    env=AtariVecEnvConfig(env=AtariEnvConfig(game="pong"), num_envs=GAMES),
    step_processor=FrameStackStepProcessorConfig(n_steps=1, gamma=0.99),
    replay_buffer=FrameReplayBufferConfig(capacity=1_000_000, stack=4, streams=GAMES),
    agent=DqnConfig(
        encoder=NatureCnnConfig(),
        hidden=(512,),
        lr=6.25e-5,
        adam_eps=1.5e-4,
        batch_size=32,
        target_update_interval=2_000,
        explorer=EpsilonGreedyConfig(eps_final=0.01, final_step=250_000),
    ),
    trainer=TrainerConfig(
        max_opts=500_000,
        opt_interval=4,
        warmup_period=20_000,
        eval_interval=25_000,
        record_interval=1_000,
        save_interval=50_000,
        keep_checkpoints=1,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=3),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
