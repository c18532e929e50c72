"""A config that is a plain class (not attrs) resumes in a new process: meta.yaml describes it by its
fields, not by a repr that holds a memory address."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from border_py.checkpoint import load_meta

ROOT = Path(__file__).parents[2]

_SCRIPT = """
import sys
from pathlib import Path
from border_py import BufferedRecorder, Trainer, TrainerConfig, latest_checkpoint
from border_py.testing import CountingEnv, FakeAgent, ListBufferConfig, RecordingStepProcessorConfig

class PlainChainConfig:
    def __init__(self, length: int) -> None:
        self.length = length

    def build(self, seed: int) -> CountingEnv:
        return CountingEnv(episode_length=self.length, seed=seed)

model_dir, max_opts, length = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
resume = sys.argv[4] == "resume"
config = TrainerConfig(max_opts=max_opts, save_interval=10, model_dir=str(model_dir), checkpoint_buffer=True)
trainer = Trainer(config, PlainChainConfig(length), RecordingStepProcessorConfig(), ListBufferConfig())
resume_from = latest_checkpoint(model_dir) if resume else None
print(trainer.train(FakeAgent(), BufferedRecorder(), resume_from=resume_from).opt_steps)
"""


def _run(model_dir: Path, max_opts: int, length: int, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(model_dir), str(max_opts), str(length), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.smoke
def test_a_plain_config_resumes_in_another_process_and_a_changed_one_is_named(tmp_path: Path) -> None:
    first = _run(tmp_path, 20, 4, "new")
    assert first.returncode == 0, first.stderr
    assert load_meta(tmp_path / "20")["config"]["env"] == {"type": "__main__.PlainChainConfig", "length": 4}

    resumed = _run(tmp_path, 40, 4, "resume")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "40"

    changed = _run(tmp_path, 60, 5, "resume")
    assert changed.returncode != 0
    assert "cannot resume from" in changed.stderr
    assert "env.length is 4 vs 5" in changed.stderr
