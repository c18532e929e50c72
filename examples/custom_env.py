"""Your own env, step processor, buffer and agent, without Gymnasium or torch: tabular Q-learning on a chain.

The chain has ``length`` cells; the agent starts in cell 0, moves left (0) or right (1), and is paid 1.0
when it reaches the last cell, which ends the episode; episodes are cut after ``2 * length`` steps. Every
role is a plain class that satisfies a border_py protocol, and mypy checks the pairing: the step
processor's items are what the buffer stores, the buffer's batches are what the agent learns from, and the
agent acts on the env's observations (an ``int``). Run it:

    python -m examples.custom_env

What each role must provide (a missing method is reported by mypy as an incompatible argument type, e.g.
``expected "SeededBuilder[Env[...] | VecEnv[...]]"``, with the method listed under "Following member(s)"):

- env config: ``build(seed) -> env``; env: ``reset``, ``reset_with_index(i)``, ``step(act) -> (Step,
  Record)``, ``episode_start_state``, ``restore_episode_start(state)``, ``close``.
- step processor config: ``build()``; step processor: ``reset(init_obs)``, ``process(step) -> items``.
- buffer config: ``build(seed)``; buffer: ``push``, ``__len__``, ``batch(n)``, ``update_priority``,
  ``save(path)``, ``load(path)``.
- agent: ``train``, ``eval``, ``is_train``, ``sample(obs)``, ``opt(buffer) -> Record | None``,
  ``save_params(path)``, ``load_params(path)``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import attrs

from border_py import (
    BufferedRecorder,
    DefaultEvaluatorConfig,
    Record,
    ReplayBuffer,
    Step,
    Trainer,
    TrainerConfig,
    TrainerOf,
)


@attrs.frozen
class ChainItem:
    """One transition of the chain."""

    obs: int
    act: int
    reward: float
    next_obs: int
    terminated: bool


@attrs.frozen(kw_only=True)
class ChainConfig:
    """Config of `Chain`."""

    length: int = attrs.field(default=6, validator=attrs.validators.ge(2))

    def build(self, seed: int) -> Chain:
        return Chain(self.length)


class Chain:
    """The env: observations are the cell index; it resets itself at an episode end."""

    def __init__(self, length: int) -> None:
        self.length, self.cell, self.t = length, 0, 0

    def reset(self) -> int:
        self.cell, self.t = 0, 0
        return 0

    def reset_with_index(self, ix: int) -> int:
        return self.reset()  # every episode starts in cell 0

    def step(self, act: int) -> tuple[Step[int, int], Record]:
        self.cell = min(max(self.cell + (1 if act == 1 else -1), 0), self.length - 1)
        self.t += 1
        terminated = self.cell == self.length - 1
        truncated = not terminated and self.t >= 2 * self.length
        step = Step(
            act=act, obs=self.cell, reward=float(terminated), is_terminated=terminated, is_truncated=truncated
        )
        if not (terminated or truncated):
            return step, Record()
        record = Record({"env/episode_return": float(terminated), "env/episode_length": self.t})
        return attrs.evolve(step, init_obs=self.reset()), record

    def episode_start_state(self) -> int:
        return 0  # deterministic: nothing to remember

    def restore_episode_start(self, state: int) -> None:
        pass

    def close(self) -> None:
        pass


class ChainStepProcessor:
    """One `ChainItem` per step."""

    def __init__(self) -> None:
        self.prev = 0

    def reset(self, init_obs: int) -> None:
        self.prev = init_obs

    def process(self, step: Step[int, int]) -> list[ChainItem]:
        item = ChainItem(self.prev, step.act, step.reward, step.obs, step.is_terminated)
        self.prev = step.obs if step.init_obs is None else step.init_obs
        return [item]


@attrs.frozen
class ChainStepProcessorConfig:
    def build(self) -> ChainStepProcessor:
        return ChainStepProcessor()


class ListReplay:
    """A ring of items; batches are lists of items sampled with a seeded RNG."""

    def __init__(self, capacity: int, seed: int) -> None:
        self.capacity, self.items, self.rng = capacity, list[ChainItem](), random.Random(seed)

    def push(self, item: ChainItem) -> None:
        self.items = [*self.items[-(self.capacity - 1) :], item]

    def __len__(self) -> int:
        return len(self.items)

    def batch(self, size: int) -> list[ChainItem]:
        return self.rng.choices(self.items, k=size)

    def update_priority(self, indices: object, td_errors: object) -> None:
        pass

    def save(self, path: Path) -> list[Path]:
        file = path / "chain_buffer.json"
        file.write_text(
            json.dumps({"items": [attrs.astuple(i) for i in self.items], "rng": self.rng.getstate()})
        )
        return [file]

    def load(self, path: Path) -> None:
        data = json.loads((path / "chain_buffer.json").read_text())
        self.items = [ChainItem(*i) for i in data["items"]]
        version, internal, gauss = data["rng"]
        self.rng.setstate((version, tuple(internal), gauss))


@attrs.frozen(kw_only=True)
class ListReplayConfig:
    capacity: int = 1_000

    def build(self, seed: int) -> ListReplay:
        return ListReplay(self.capacity, seed)


class QTable:
    """Tabular Q-learning with epsilon-greedy exploration: the agent."""

    def __init__(self, length: int, lr: float = 0.5, gamma: float = 0.9, seed: int = 0) -> None:
        self.q = [[0.0, 0.0] for _ in range(length)]
        self.lr, self.gamma, self.batch_size = lr, gamma, 16
        self.rng, self._train = random.Random(seed), True

    def train(self) -> None:
        self._train = True

    def eval(self) -> None:
        self._train = False

    def is_train(self) -> bool:
        return self._train

    def sample(self, obs: int) -> int:
        if self._train and self.rng.random() < 0.3:
            return self.rng.randrange(2)
        return 1 if self.q[obs][1] >= self.q[obs][0] else 0

    def opt(self, buffer: ReplayBuffer[list[ChainItem]]) -> Record | None:
        if len(buffer) < self.batch_size:
            return None
        errors = []
        for item in buffer.batch(self.batch_size):
            target = item.reward + (0.0 if item.terminated else self.gamma * max(self.q[item.next_obs]))
            errors.append(target - self.q[item.obs][item.act])
            self.q[item.obs][item.act] += self.lr * errors[-1]
        return Record({"train/td_error": sum(abs(e) for e in errors) / len(errors)})

    def save_params(self, path: Path) -> list[Path]:
        (path / "q.json").write_text(json.dumps({"q": self.q, "rng": self.rng.getstate()}))
        return [path / "q.json"]

    def load_params(self, path: Path) -> None:
        data = json.loads((path / "q.json").read_text())
        version, internal, gauss = data["rng"]
        self.q, self.rng = data["q"], random.Random()
        self.rng.setstate((version, tuple(internal), gauss))


def make_trainer(model_dir: str | None = None) -> TrainerOf[int, int, ChainItem, list[ChainItem]]:
    """The trainer, annotated so that mypy keeps checking what ``train`` is given."""
    config = TrainerConfig(max_opts=300, eval_interval=50, model_dir=model_dir)
    return Trainer(config, ChainConfig(), ChainStepProcessorConfig(), ListReplayConfig())


def main(argv: list[str] | None = None) -> int:
    """Trains the Q-table until the greedy policy walks straight to the end of the chain (``--help``: what
    this program is, without training)."""
    argparse.ArgumentParser(
        prog="python -m examples.custom_env",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    env = ChainConfig().build(seed=1)
    agent = QTable(env.length)
    result = make_trainer().train(agent, BufferedRecorder(), DefaultEvaluatorConfig(n_episodes=1).build(env))
    print(f"best greedy return {result.best_score} after {result.opt_steps} opt steps")
    return 0 if result.best_score == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
