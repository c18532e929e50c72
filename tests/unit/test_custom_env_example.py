"""``examples/custom_env.py``, the own-env tutorial's program: ``--help`` says what it is without training
(it trained before, issue 51), and a run walks the chain."""

from __future__ import annotations

import pytest

from examples.custom_env import main


def test_help_prints_the_program_and_trains_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m examples.custom_env")
    assert "tabular Q-learning on a chain" in out
    assert "best greedy return" not in out


def test_a_run_walks_the_chain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "best greedy return 1.0" in capsys.readouterr().out
