"""SAC with goal relabelling (HER) on gymnasium-robotics' ``FetchReach-v4`` (the ``robotics`` extra) with RL
Zoo's settings: the zoo's ``sac`` entry for it, as a program.

    python -m examples.sac_her_fetch --train     # 20,000 env steps (~2 min), into runs/sac/FetchReach-v4/...
    python -m examples.sac_her_fetch --eval      # the best model, greedy
    python -m examples.sac_her_fetch --export    # numpy and ONNX policies that take the dict

RL Zoo's FetchReach entry (hyperparams/sac.yml): HER's ``future`` strategy with 4 relabelled goals a
transition, lr 1e-3, 64x64 networks, batch 256, gamma 0.95, 1,000 warm-up env steps. Relabelling stores 5
transitions per env step, so a capacity of 100,000 keeps the whole run, as RL Zoo's 1,000,000 does. RL
Zoo's observation normalisation has no SAC counterpart here. Seeds 0-2 reach every goal, as
Stable-Baselines3's SAC + ``HerReplayBuffer`` does at the same settings (docs/results.md).
"""

import sys

from border_py import (
    DefaultEvaluatorConfig,
    GymEnvConfig,
    HerStepProcessorConfig,
    SimpleReplayBufferConfig,
    TrainerConfig,
)
from border_py.agents import SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="FetchReach-v4"),
    step_processor=HerStepProcessorConfig(strategy="future", n_sampled_goal=4, gamma=0.95),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=SacConfig(
        actor_hidden=(64, 64),
        critic_hidden=(64, 64),
        actor_lr=1e-3,
        critic_lr=1e-3,
        alpha_lr=1e-3,
        batch_size=256,
        tau=0.005,
    ),
    trainer=TrainerConfig(
        max_env_steps=20_000,
        warmup_period=1_000,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        checkpoint_buffer=True,
        keep_checkpoints=None,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=10),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
