"""A user's own script, outside the repository, type-checks with ``mypy --strict`` against the installed
border_py, as a user would run it: no config file, the installed package found through site-packages."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

_STR_AGENT = '''
from pathlib import Path

from border_py import BufferedRecorder, Record, ReplayBuffer
from my_rl import ChainItem, make_trainer


class StrAgent:
    """Acts on str observations: it cannot act in the chain, whose observations are ints."""

    def train(self) -> None: ...
    def eval(self) -> None: ...
    def is_train(self) -> bool:
        return True
    def sample(self, obs: str) -> int:
        return len(obs)
    def opt(self, buffer: ReplayBuffer[list[ChainItem]]) -> Record | None:
        return None
    def save_params(self, path: Path) -> list[Path]:
        return []
    def load_params(self, path: Path) -> None: ...


make_trainer().train(StrAgent(), BufferedRecorder())
'''


@pytest.mark.smoke
def test_a_user_script_outside_the_repository_type_checks_strictly(tmp_path: Path) -> None:
    assert not tmp_path.is_relative_to(ROOT)
    shutil.copy(ROOT / "examples" / "custom_env.py", tmp_path / "my_rl.py")
    (tmp_path / "bad.py").write_text(_STR_AGENT)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            # Kept between runs (git ignores it): mypy re-checks whatever changed, and the installed
            # libraries (torch above all) are not analysed again on every local run.
            str(ROOT / ".mypy_cache" / "user-typing"),
            "my_rl.py",
            "bad.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    # The user's env, agent and trainer factory pass; the one mismatch is found, through the factory.
    assert all(line.startswith("bad.py:") for line in errors), done.stdout
    assert len(errors) == 1, done.stdout
    assert 'has incompatible type "StrAgent"; expected "Agent[int, int, list[ChainItem]]"' in errors[0]
    assert "Cannot find implementation or library stub" not in done.stdout
