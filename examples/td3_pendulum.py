"""TD3 on Pendulum-v1 with RL Zoo's settings: the zoo's ``td3`` entry for Pendulum-v1, as a program.

    python -m examples.td3_pendulum --train    # 20,000 env steps, into runs/td3/Pendulum-v1/seed0
    python -m examples.td3_pendulum --eval     # the best model: the deterministic actor
    python -m examples.td3_pendulum --train --set agent.n_critics=1 agent.policy_delay=1 \\
        agent.target_noise=0.0 agent.exploration=ou --model-dir runs/ddpg/Pendulum-v1/seed0   # DDPG

The same run as ``border-py train td3 --env Pendulum-v1``: [400, 300] networks, lr 1e-3, batch 256, gamma
0.98, Gaussian exploration of std 0.1, target smoothing 0.2 clipped at 0.5, the actor updated every second
critic update; 10,000 warm-up env steps of uniformly random actions, then one update per env step.
"""

import sys

from border_py import GymEnvConfig, NStepStepProcessorConfig, SimpleReplayBufferConfig, TrainerConfig
from border_py.agents import Td3Config
from border_py.run import Experiment, run_cli

EXPERIMENT = Experiment(
    env=GymEnvConfig(name="Pendulum-v1"),
    step_processor=NStepStepProcessorConfig(n_steps=1, gamma=0.98),
    replay_buffer=SimpleReplayBufferConfig(capacity=200_000),
    agent=Td3Config(
        actor_hidden=(400, 300),
        critic_hidden=(400, 300),
        actor_lr=1e-3,
        critic_lr=1e-3,
        batch_size=256,
        exploration_std=0.1,
        target_noise=0.2,
        target_noise_clip=0.5,
        policy_delay=2,
    ),
    trainer=TrainerConfig(
        max_env_steps=20_000,
        warmup_period=10_000,
        eval_interval=1_000,
        record_interval=500,
        save_interval=5_000,
        checkpoint_buffer=True,
    ),
)

if __name__ == "__main__":
    sys.exit(run_cli(EXPERIMENT, description=__doc__))
