"""PPO with invalid-action masking: border_py's env ``border_py/PickDistinct-v0``, whose observation's
``action_mask`` part flags the legal actions, as the zoo's ``ppo`` entry for it, as a program.

    python -m examples.ppo_pick_distinct --train    # 102,400 env steps (~1 min), into runs/ppo/...
    python -m examples.ppo_pick_distinct --eval     # the best model, greedy among the legal actions

Nothing in the config asks for masking: the env's observation has an ``action_mask`` part, so PPO draws,
evaluates, learns (its log-probabilities and entropy cover the legal actions only, as sb3-contrib's
``MaskablePPO``) and exports among the legal actions alone. SB3's PPO defaults (64x64 tanh, 10 epochs of
minibatches of 64, lr 3e-4, clip 0.2) over 8 envs with rollouts of 64.
"""

import sys

from border_py import DefaultEvaluatorConfig, RolloutBufferConfig, SimpleStepProcessorConfig, TrainerConfig
from border_py.agents import PpoConfig
from border_py.envs import GymVecEnvConfig
from border_py.run import Experiment, run_cli

ENVS, ROLLOUT = 8, 64

EXPERIMENT = Experiment(
    env=GymVecEnvConfig(name="border_py/PickDistinct-v0", num_envs=ENVS),
    step_processor=SimpleStepProcessorConfig(gamma=0.99),
    replay_buffer=RolloutBufferConfig(n_steps=ROLLOUT, num_envs=ENVS),
    agent=PpoConfig(),
    trainer=TrainerConfig(
        max_env_steps=102_400,
        opt_interval=ROLLOUT * ENVS,
        eval_interval=20,
        record_interval=5,
        save_interval=100,
        checkpoint_buffer=True,
        keep_checkpoints=None,
    ),
    evaluator=DefaultEvaluatorConfig(n_episodes=10),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
