"""DQN on Atari (Pong by default; ``--env GAME`` for any ALE game, e.g. ``--env breakout``).

Train, then evaluate the best model saved during training::

    python -m examples.dqn_atari --train --model-dir runs/dqn_pong
    python -m examples.dqn_atari --eval --model-dir runs/dqn_pong

The defaults follow Dopamine's DQN (``dqn.gin``): a replay of 1,000,000 transitions (about 7 GB: each frame is
stored once, ``FrameReplayBuffer``), learning from 20,000 env steps on, one opt step on a batch of 32 every 4
env steps (4 games step together: one opt step per step of all 4), the target network copied every 8,000 env
steps (2,000 opt steps), epsilon from 1 to 0.01 over the first 250,000 env steps, gamma 0.99, Huber loss. Two
differences: Adam (lr 6.25e-5, eps 1.5e-4, the values Dopamine's Rainbow and its JAX DQN use) instead of
RMSProp, as every border_py agent learns with Adam; and DQN Zoo's environment protocol (30 no-op starts, no
sticky actions). Observations are 4 stacked 84x84 grayscale frames, uint8 from the emulator to the network
(``AtariEnvConfig``), which scales them on its device; rewards are clipped to their sign for learning, and the
records keep the game's score. Evaluation plays whole games greedily with raw rewards.

A full run is long on a CPU: see the README's Atari section for what was run and measured.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from border_py import (
    AtariEnvConfig,
    AtariVecEnvConfig,
    DefaultEvaluatorConfig,
    FrameReplayBufferConfig,
    FrameStackStepProcessorConfig,
    TrainerConfig,
    TrainResult,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig, NatureCnnConfig
from border_py.envs import AtariEnv
from examples.harness import (
    EvalOptions,
    RunOptions,
    evaluate_saved,
    run_example,
    split_env_flag,
    train_online,
)


@attrs.frozen(kw_only=True)
class Config:
    """Everything one run of this example needs."""

    env: AtariVecEnvConfig = AtariVecEnvConfig(env=AtariEnvConfig(game="pong"), num_envs=4)
    """4 games stepped together on one core, one forward pass acting for all (``benchmarks/RESULTS.md``:
    the collection rate)."""
    trainer: TrainerConfig = TrainerConfig(
        max_opts=500_000,
        opt_interval=4,
        warmup_period=20_000,
        eval_interval=25_000,
        record_interval=1_000,
        save_interval=50_000,
        keep_checkpoints=1,
        model_dir="runs/dqn_atari",
        seed=0,
        checkpoint_buffer=False,
    )
    """2,000,000 env steps (500,000 opt steps); the buffer is not checkpointed by default (7 GB)."""
    step_processor: FrameStackStepProcessorConfig = FrameStackStepProcessorConfig(n_steps=1, gamma=0.99)
    replay_buffer: FrameReplayBufferConfig = FrameReplayBufferConfig(capacity=1_000_000, stack=4, streams=4)
    agent: DqnConfig = DqnConfig(
        encoder=NatureCnnConfig(),
        hidden=(512,),
        lr=6.25e-5,
        adam_eps=1.5e-4,
        batch_size=32,
        target_update_interval=2_000,
        loss="huber",
        explorer=EpsilonGreedyConfig(eps_start=1.0, eps_final=0.01, final_step=250_000),
    )
    evaluator: DefaultEvaluatorConfig = DefaultEvaluatorConfig(n_episodes=3)
    torch_threads: int = attrs.field(default=1, validator=attrs.validators.gt(0))
    """Torch intra-op threads (``device: cuda`` in ``agent`` moves the networks to a GPU)."""

    @property
    def eval_env(self) -> AtariEnvConfig:
        """The evaluation env: one game, played whole, with raw rewards."""
        return self.env.env.evaluation()


def make_agent(config: Config, env: AtariEnv) -> Dqn:
    """The agent, sized by ``env``."""
    shape = tuple(env.observation_space.shape or ())
    return Dqn(config.agent, env.obs_dim, env.n_actions, config.trainer.seed, obs_shape=shape)


def train(config: Config, options: RunOptions | None = None) -> TrainResult:
    """Trains, saving into ``config.trainer.model_dir`` (continuing from its newest checkpoint with
    ``options.resume``); returns the scores and step counts."""
    return train_online(config, lambda env: make_agent(config, env), options or RunOptions())


def evaluate(config: Config, model_dir: Path, options: EvalOptions | None = None) -> float:
    """Loads ``model_dir/best`` and returns its greedy mean score over the evaluator's games."""
    return evaluate_saved(config, lambda env: make_agent(config, env), model_dir, options)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags (``--env GAME`` picks the game) and runs training and/or evaluation."""
    game, rest = split_env_flag(argv)
    default = Config()
    if game is not None:
        game_config = attrs.evolve(default.env.env, game=game)
        default = attrs.evolve(default, env=attrs.evolve(default.env, env=game_config))
    return run_example(rest, __doc__, default, train, evaluate)


if __name__ == "__main__":
    sys.exit(main())
