"""SAC with goal relabelling (HER) on border_py's goal env ``border_py/PointGoal-v0`` with its sparse reward
(0 within 0.05 of the goal, else -1), as the zoo's ``sac`` entry for it, variant ``her``, as a program.

    python -m examples.sac_her_point_goal --train     # 5,000 env steps (~2 min), into runs/sac/...
    python -m examples.sac_her_point_goal --eval      # the best model, greedy
    python -m examples.sac_her_point_goal --export    # numpy and ONNX policies that take the dict

The step processor holds each episode and, at its end, stores every transition with 4 relabelled copies
whose goal is one the episode reached later (``future``), their rewards from the env's own
``compute_reward``: the buffer holds 5 transitions per env step. Without it (``--variant sparse`` of the
zoo entry) SAC hardly ever reaches a goal at this budget. The other settings are those of
``examples/sac_point_goal.py``.
"""

import sys

from border_py import GymEnvConfig, HerStepProcessorConfig, SimpleReplayBufferConfig, TrainerConfig
from border_py.agents import SacConfig
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="border_py/PointGoal-v0", kwargs={"reward_type": "sparse"}),
    step_processor=HerStepProcessorConfig(strategy="future", n_sampled_goal=4, gamma=0.99),
    replay_buffer=SimpleReplayBufferConfig(capacity=100_000),
    agent=SacConfig(actor_lr=1e-3, critic_lr=1e-3, alpha_lr=1e-3, batch_size=256, tau=0.005),
    trainer=TrainerConfig(
        max_env_steps=5_000,
        warmup_period=256,
        eval_interval=500,
        record_interval=500,
        save_interval=2_500,
        checkpoint_buffer=True,
        keep_checkpoints=None,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
