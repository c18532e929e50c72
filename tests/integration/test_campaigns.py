"""The campaigns (outside the package): one job list; the MuJoCo driver and report on tiny budgets: runs are
carried on (not repeated), the report reads the run directories alone, the aggregate is rliable's over
(seeds, envs)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from border_py.run import zoo
from border_py.run.zoo import experiment
from campaigns import mujoco_report
from campaigns.jobs import JOBS, Published
from campaigns.mujoco import run, seed_runs

TINY = [
    "trainer.max_env_steps=1024",
    "replay_buffer.n_steps=256",
    "trainer.opt_interval=256",
    "trainer.eval_interval=2",
    "trainer.save_interval=2",
    "trainer.record_interval=1",
    "evaluator.n_episodes=1",
]


def test_the_campaign_is_carried_on_and_reported_from_its_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(seed_runs(tmp_path, "ppo", ["Swimmer-v5"], [0, 1], TINY), tmp_path, n_jobs=2) == 0
    done = seed_runs(tmp_path, "ppo", ["Swimmer-v5"], [0, 1])
    assert all(job.finished() for job in done)
    assert run(done, tmp_path, n_jobs=2) == 0  # nothing left: nothing trained again
    assert "0 run(s) to train or resume" in capsys.readouterr().out

    runs = seed_runs(tmp_path, "ppo", ["Swimmer-v5"], [0, 1, 2])
    assert mujoco_report.report(runs, tmp_path, tmp_path / "figures", episodes=1) == 0
    out = capsys.readouterr().out
    assert "not finished, left out: ppo_Swimmer-v5 seed 2" in out
    assert "| Swimmer-v5 | 0, 1 |" in out
    assert "IQM of normalised final scores over 2 runs" in out
    for name in ("ppo_Swimmer-v5.png", "ppo_mujoco_aggregate.png"):
        assert (tmp_path / "figures" / name).stat().st_size > 10_000
    summary = mujoco_report.summarize_run(done[0], episodes=2)
    assert summary.env_steps == 1024
    assert all(seconds > 0.0 for seconds in summary.seconds.values())
    # Beside the return, how far the swimmer went (standing still must never pass for learning).
    assert summary.distance is not None
    assert "| distance per episode, final (m) |" in out
    from border_py.run.rundir import RunDir
    from border_py.run.saved import evaluate

    run_dir = RunDir(done[0].model_dir)
    point = run_dir.resume_point()
    assert point is not None
    assert summary.final == evaluate(run_dir.read_config(), run_dir.path, point.name, 2, quiet=True)


def test_a_stopped_run_is_resumed_and_a_new_one_is_the_zoo_entry(tmp_path: Path) -> None:
    stopped_runs = seed_runs(tmp_path, "ppo", ["Swimmer-v5"], [3], TINY)
    assert run(stopped_runs, tmp_path, n_jobs=1) == 0
    (stopped,) = seed_runs(tmp_path, "ppo", ["Swimmer-v5"], [3])
    assert stopped.finished()
    shutil.rmtree(stopped.model_dir / "4")  # as if killed after its checkpoint at opt step 2
    assert not stopped.finished()  # 512 of 1024 env steps
    assert stopped.argv()[0] == "resume"
    (fresh,) = seed_runs(tmp_path, "ppo", ["Hopper-v5"], [0])
    argv = fresh.argv()
    assert argv[:4] == ["train", "ppo", "--env", "Hopper-v5"]
    assert "--set" not in argv
    zoo = experiment("ppo", "Hopper-v5", str(fresh.model_dir)).trainer
    assert zoo.max_env_steps == 1_000_000
    assert zoo.eval_interval is not None
    assert zoo.eval_interval * zoo.opt_interval == 51_200  # every 25 rollouts of 2,048 (CleanRL's entry)
    # TQC's long runs checkpoint five times as often as the zoo entry, keeping the newest three.
    (tqc,) = seed_runs(tmp_path, "tqc", ["Hopper-v5"], [0])
    tqc_argv = tqc.argv()
    assert tqc_argv[tqc_argv.index("--set") + 1 :] == [
        "trainer.save_interval=10000",
        "trainer.keep_checkpoints=3",
    ]


def test_normalised_scores_and_their_aggregate() -> None:
    hopper, swimmer = Published("Hopper-v3", 2410.4, 10.0), Published("Swimmer-v3", 281.6, 9.7)
    runs = [
        mujoco_report.RunSummary("Hopper-v5", seed, hopper, final, final, 1_000_000, {})
        for seed, final in enumerate([2410.4, 1210.4, 10.4])
    ] + [
        mujoco_report.RunSummary("Swimmer-v5", seed, swimmer, final, final, 1_000_000, {})
        for seed, final in enumerate([281.6, 141.6, 1.6])
    ]
    scores = mujoco_report.normalised(runs, {"Hopper-v5": 10.4, "Swimmer-v5": 1.6})
    np.testing.assert_allclose(scores["Hopper-v5"].ravel(), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(scores["Swimmer-v5"].ravel(), [1.0, 0.5, 0.0])
    summary = mujoco_report.aggregate(scores, reps=500)
    # Six scores 1, 1, .5, .5, 0, 0: the IQM (scipy's trim_mean, 25 %) drops one from each end.
    assert summary["IQM"][0] == pytest.approx(0.5)
    assert summary["median"][0] == pytest.approx(0.5)
    for point, low, high in summary.values():
        assert 0.0 <= low <= point <= high <= 1.0


def test_every_job_is_a_zoo_entry_and_names_are_unique() -> None:
    assert len({j.name for j in JOBS}) == len(JOBS)
    for j in JOBS:
        assert zoo.entry(j.algo, j.env_id, j.variant).tuned, j.name
        assert (j.threshold is None) != (j.published is None), j.name  # compared with one or the other


def test_the_atari_runs_are_zoo_entries_in_their_game_directories(tmp_path: Path) -> None:
    from campaigns import atari

    runs = atari.seed_runs(tmp_path)
    where = [r.model_dir.relative_to(tmp_path).as_posix() for r in runs]
    assert where == ["ppo/pong/seed0", "dqn/pong/seed0", "ppo/breakout/seed0", "iqn/pong/seed0"]
    for r in runs:
        assert zoo.entry(r.job.algo, r.job.env_id, None).tuned, r.job.name
    with pytest.raises(ValueError, match="no Atari job"):
        atari.seed_runs(tmp_path, ["ppo_pongg"])
    # The off-policy runs save their buffer every 10k opt steps; PPO's update runs in bf16 on two threads.
    dqn, ppo = runs[1].argv(), runs[0].argv()
    assert dqn[dqn.index("--set") + 1 :] == ["trainer.save_interval=10000", "trainer.checkpoint_buffer=true"]
    assert ppo[ppo.index("--set") + 1 :] == ["agent.update_dtype=bfloat16", "torch_threads=2"]
    iqn = runs[3].argv()
    assert iqn[iqn.index("--set") + 1 :][-1] == "agent.update_dtype=bfloat16"


def test_a_run_whose_budget_is_in_opt_steps_is_finished_at_it(tmp_path: Path) -> None:
    """DQN's Pong entry stops at max_opts (its max_env_steps is null): the campaign must not resume it
    for ever."""
    from campaigns.jobs import Job
    from campaigns.mujoco import SeedRun

    tiny = ("trainer.max_opts=20", "trainer.max_env_steps=null", "trainer.warmup_period=32",
            "trainer.save_interval=10", "trainer.eval_interval=null")  # fmt: skip
    job = SeedRun(Job("dqn_tiny", "atari", "dqn", "CartPole-v1"), 0, tmp_path / "dqn" / "seed0", tiny)
    assert not job.finished()
    assert run([job], tmp_path, n_jobs=1) == 0
    assert job.finished()
