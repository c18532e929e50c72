"""A tiny DQN CartPole-v1 experiment as a YAML file: the zoo's entry with a budget of a second."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from border_py.run import zoo


def tiny_config(tmp_path: Path, name: str = "tiny.yaml", **sections: Any) -> Path:
    """40 opt steps, saves and evaluations (1 episode) every 20, a 16-unit network; ``sections`` merged."""
    changes = zoo.merge(
        {
            "trainer": {"max_opts": 40, "warmup_period": 100, "eval_interval": 20, "save_interval": 20,
                        "record_interval": 10},
            "replay_buffer": {"capacity": 1_000},
            "agent": {"batch_size": 32, "hidden": [16]},
            "evaluator": {"n_episodes": 1},
        },
        sections,
    )  # fmt: skip
    path = tmp_path / name
    # Plain data, with no model_dir: the command line gives it (--model-dir).
    path.write_text(yaml.safe_dump(zoo.merge(zoo.entry("dqn", "CartPole-v1").data, changes), sort_keys=False))
    return path
