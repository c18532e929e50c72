"""Asynchronous training on a real local Ray: the rate limit, checkpoints and resume, dead actors, Ctrl-C."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest

from border_py import (
    BufferedRecorder,
    DefaultEvaluatorConfig,
    GymEnv,
    GymEnvConfig,
    Record,
    SimpleReplayBufferConfig,
    SimpleStepProcessorConfig,
    TrainerConfig,
    TrainingInterrupted,
    latest_checkpoint,
)
from border_py.agents import Dqn, DqnConfig, EpsilonGreedyConfig
from border_py.base import Spaces
from border_py.checkpoint import load_meta
from border_py.distributed import AsyncConfig, AsyncTrainer
from border_py.envs import Act, Obs
from border_py.trainer.interrupts import ExperienceSourceError, Interrupts

pytestmark = pytest.mark.usefixtures("ray_cluster")

AGENT = DqnConfig(
    hidden=(32,),
    batch_size=32,
    lr=1e-3,
    explorer=EpsilonGreedyConfig(final_step=1_000),
    target_update_interval=50,
)
ENV = GymEnvConfig(name="CartPole-v1")


def make_agent(seed: int) -> Dqn:
    """Module level: the actors import it by name."""
    return Dqn(AGENT, Spaces(obs_shape=(4,), n_actions=2), seed=seed)


def _trainer(tmp_path: Path, env: Any = ENV, **changes: Any) -> AsyncTrainer[Any, Any, Any]:
    config = TrainerConfig(
        max_opts=400,
        opt_interval=2,
        warmup_period=200,
        eval_interval=200,
        record_interval=100,
        save_interval=200,
        model_dir=str(tmp_path / "run"),
        checkpoint_buffer=True,
        seed=0,
    )
    async_changes = {k: changes.pop(k) for k in list(changes) if k in attrs.fields_dict(AsyncConfig)}
    async_config = AsyncConfig(**{"n_actors": 2, "actor_steps": 32, "sync_interval": 50, **async_changes})
    return AsyncTrainer(
        attrs.evolve(config, **changes),
        async_config,
        env,
        SimpleStepProcessorConfig(),
        SimpleReplayBufferConfig(capacity=10_000),
    )


def _evaluator() -> Any:
    return DefaultEvaluatorConfig(n_episodes=2).build(ENV.build(1))


def _scalars(recorder: BufferedRecorder, key: str) -> list[float]:
    return [float(r[key]) for _, r in recorder.records if key in r]  # type: ignore[arg-type]


def test_the_learner_trains_at_the_configured_ratio_and_saves_as_the_sync_trainer(tmp_path: Path) -> None:
    trainer = _trainer(tmp_path)
    recorder = BufferedRecorder()
    result = trainer.train(make_agent(0), make_agent, recorder, _evaluator())
    assert result.opt_steps == 400
    assert result.stop_reason == "max_opts"
    # Opt step k needs 200 + 2k env steps; actors are at most `tolerance` opt steps (of 2 env steps) ahead.
    tolerance = trainer.tolerance
    assert 200 + 2 * 400 <= result.env_steps <= 200 + 2 * (400 + tolerance) + 2 * 32
    spi = _scalars(recorder, "async/samples_per_insert")
    assert spi
    assert all(abs(s - 16.0) <= 16.0 * tolerance / 100 for s in spi[1:])  # batch 32 / opt_interval 2
    # Versions 0 .. 7 went out at opt steps 0, 50, .., 350 (training ended at 400, before another).
    assert _scalars(recorder, "async/policy_version")[-1] == 7.0
    assert _scalars(recorder, "async/actor_restarts")[-1] == 0.0
    assert max(_scalars(recorder, "async/policy_lag")) <= 400
    assert _scalars(recorder, "env/episode_return")  # the actors' episodes reach the recorder
    run = tmp_path / "run"
    assert (run / "best").is_dir()
    assert load_meta(run / "400")["opt_steps"] == 400
    assert load_meta(run / "400")["config"]["async"]["n_actors"] == 2


def test_more_actors_than_the_cluster_has_cpus_for_are_refused_before_any_starts(tmp_path: Path) -> None:
    import ray

    too_many = int(_total_cpus(ray)) + 1
    with pytest.raises(ValueError, match=rf"{too_many} actors \(n_actors\) x 1 CPUs"):
        _trainer(tmp_path, n_actors=too_many).train(
            make_agent(0), make_agent, BufferedRecorder(), _evaluator()
        )
    assert not (tmp_path / "run").exists()  # refused before the model directory was touched
    _wait_for_free_cpus(ray)  # no actor of this run holds one (an earlier test's may still be ending)


def test_a_resumed_run_continues_its_counters_buffer_and_policy_versions(tmp_path: Path) -> None:
    first = _trainer(tmp_path, max_opts=200)
    first.train(make_agent(0), make_agent, BufferedRecorder(), _evaluator())
    checkpoint = latest_checkpoint(tmp_path / "run")
    assert checkpoint is not None
    assert checkpoint.name == "200"
    second = _trainer(tmp_path, max_opts=300)
    recorder = BufferedRecorder()
    agent = make_agent(0)
    result = second.train(agent, make_agent, recorder, _evaluator(), resume_from=checkpoint)
    assert result.opt_steps == 300
    assert result.env_steps >= 200 + 2 * 300
    assert [e.opt_steps for e in result.evaluations] == [200]  # the first run's, kept; none due at 300
    assert _scalars(recorder, "async/policy_version")[0] > 200 // 50  # versions go on from the checkpoint
    with pytest.raises(ValueError, match=r"trainer\.seed"):
        _trainer(tmp_path, seed=1).check_resume(checkpoint)


@attrs.frozen
class FailingEnvConfig:
    """CartPole whose ``fail_at``-th step raises (or, with ``hang``, never returns) in the first process
    that builds it (a marker file says it happened), or in every process with ``always``."""

    marker: str
    fail_at: int = 100
    always: bool = False
    hang: bool = False

    def build(self, seed: int) -> GymEnv:
        return FailingEnv(self, seed)


class FailingEnv(GymEnv):
    def __init__(self, config: FailingEnvConfig, seed: int) -> None:
        super().__init__(ENV, seed)
        self.failing = config
        self.steps = 0

    def step(self, act: Act) -> Any:
        self.steps += 1
        if self.steps == self.failing.fail_at and (self.failing.always or self._first()):
            if self.failing.hang:
                time.sleep(3600)
            raise RuntimeError("the env broke")
        return super().step(act)

    def _first(self) -> bool:
        """Whether this process is the first to fail (creating the marker is atomic: one wins)."""
        try:
            os.close(os.open(self.failing.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    def obs_of(self) -> Obs:  # pragma: no cover - unused; keeps the class small and typed
        return np.zeros(4, np.float32)


def test_an_actor_whose_env_raises_is_restarted_and_the_run_goes_on(tmp_path: Path) -> None:
    env = FailingEnvConfig(marker=str(tmp_path / "failed"))
    recorder = BufferedRecorder()
    result = _trainer(tmp_path, env=env).train(make_agent(0), make_agent, recorder, _evaluator())
    assert (tmp_path / "failed").exists()
    assert result.opt_steps == 400
    assert _scalars(recorder, "async/actor_restarts")[-1] >= 1.0


def test_an_actor_whose_request_never_returns_is_replaced_after_stuck_timeout(tmp_path: Path) -> None:
    env = FailingEnvConfig(marker=str(tmp_path / "hung"), fail_at=5, hang=True)
    recorder = BufferedRecorder()
    # Long enough that the other actor alone would not end the run before the timeout; the timeout long
    # enough that a healthy request on a loaded machine never reaches it (2 s did, with 4 busy processes on
    # 2 cores: 5 restarts counted instead of 1).
    trainer = _trainer(tmp_path, env=env, stuck_timeout=5.0, max_opts=4000, save_interval=None)
    result = trainer.train(make_agent(0), make_agent, recorder, _evaluator())
    assert (tmp_path / "hung").exists()
    assert result.opt_steps == 4000
    assert _scalars(recorder, "async/actor_restarts")[-1] == 1.0


def test_actors_that_all_hang_end_the_run_with_an_error_instead_of_a_hang(tmp_path: Path) -> None:
    env = FailingEnvConfig(marker=str(tmp_path / "hung"), fail_at=5, hang=True, always=True)
    with pytest.raises(
        ExperienceSourceError, match=r"actor \d died 2 times \(distributed.max_restarts is 1\)"
    ):
        _trainer(tmp_path, env=env, stuck_timeout=2.0, max_restarts=1).train(
            make_agent(0), make_agent, BufferedRecorder(), _evaluator()
        )


def test_an_actor_that_keeps_dying_stops_training_with_an_error_naming_it(tmp_path: Path) -> None:
    env = FailingEnvConfig(marker=str(tmp_path / "failed"), fail_at=20, always=True)
    died = r"actor \d died 2 times \(distributed.max_restarts is 1\)"
    with pytest.raises(ExperienceSourceError, match=died) as info:
        _trainer(tmp_path, env=env, max_restarts=1).train(
            make_agent(0), make_agent, BufferedRecorder(), _evaluator()
        )
    # The learner's work is kept: a final checkpoint, named in the error, to resume from.
    assert info.value.checkpoint is not None
    assert info.value.checkpoint == latest_checkpoint(tmp_path / "run")
    assert f"checkpoint saved to {info.value.checkpoint}" in str(info.value)


def make_agent_noting_pid(seed: int, folder: str) -> Dqn:
    """``make_agent``, and the actor's process id as the file ``folder/<pid>`` (for the kill test)."""
    (Path(folder) / str(os.getpid())).touch()
    return make_agent(seed)


class KillThenWaitForRestart:
    """An evaluator that kills the first actor's process once training has run ``kill_after`` seconds, and
    scores 1 once a third actor process (the restart) has been up for ``settle`` seconds, else 0: with
    ``stop_score=1`` the run lasts until the restarted actor has worked a while, however slow the machine.
    (A kill in the first seconds, before Ray's driver has heard that the actor is alive, loses the request
    in flight: the regime's watchdog replaces such an actor after ``AsyncConfig.stuck_timeout``, so
    ``settle`` is longer than the test's timeout.)"""

    def __init__(self, pids: Path, kill_after: float = 6.0, settle: float = 10.0) -> None:
        self.pids, self.kill_after, self.settle = pids, kill_after, settle
        self.start = time.monotonic()
        self.killed: int | None = None
        self.since: float | None = None

    def evaluate(self, policy: Any) -> tuple[float, Record]:
        now = time.monotonic()
        if self.killed is None and now - self.start >= self.kill_after:
            self.killed = int(sorted(self.pids.iterdir())[0].name)
            os.kill(self.killed, signal.SIGKILL)
        if self.since is None and len(list(self.pids.iterdir())) >= 3:
            self.since = now
        done = self.since is not None and now - self.since >= self.settle
        return float(done), Record({})


def test_killing_an_actors_process_mid_run_restarts_it_and_the_run_finishes(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    recorder = BufferedRecorder()
    trainer = _trainer(
        tmp_path, max_opts=500_000, eval_interval=100, stop_score=1.0, save_interval=None, stuck_timeout=5.0
    )
    evaluator = KillThenWaitForRestart(pids)
    result = trainer.train(
        make_agent(0), functools.partial(make_agent_noting_pid, folder=str(pids)), recorder, evaluator
    )
    assert evaluator.killed is not None
    assert result.stop_reason == "stop_score"  # the restarted actor came up and the run went on
    assert len(list(pids.iterdir())) in (3, 4)  # Ray's restart, and the watchdog's if Ray lost the request
    assert _scalars(recorder, "async/actor_restarts")[-1] == 1.0


def test_ctrl_c_saves_a_checkpoint_and_stops_every_actor(tmp_path: Path) -> None:
    import ray

    pids = tmp_path / "pids"
    pids.mkdir()

    def interrupt_when_training() -> None:
        # Before the loop's handler is installed, SIGINT is a plain KeyboardInterrupt (raised inside Ray when
        # it lands in a wait): a fixed sleep after the actors start lost that race on a loaded machine.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (
            len(list(pids.iterdir())) < 2 or not _training_handles_sigint()
        ):
            time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_when_training, daemon=True).start()
    with pytest.raises(TrainingInterrupted) as stopped:
        _trainer(tmp_path, max_opts=1_000_000, save_interval=None, eval_interval=None).train(
            make_agent(0), functools.partial(make_agent_noting_pid, folder=str(pids)), BufferedRecorder()
        )
    assert stopped.value.checkpoint is not None
    assert stopped.value.checkpoint.is_dir()
    _wait_for_free_cpus(ray)  # every actor ended: the CPUs they held (one each) are free again


def _training_handles_sigint() -> bool:
    """Whether the training loop's own SIGINT handler (``Interrupts``) is installed."""
    return isinstance(getattr(signal.getsignal(signal.SIGINT), "__self__", None), Interrupts)


def _wait_for_free_cpus(ray: Any) -> None:
    deadline = time.monotonic() + 20
    while _free_cpus(ray) < _total_cpus(ray) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _free_cpus(ray) == _total_cpus(ray)


def _free_cpus(ray: Any) -> float:
    return float(ray.available_resources().get("CPU", 0.0))


def _total_cpus(ray: Any) -> float:
    return float(ray.cluster_resources()["CPU"])


def test_the_async_zoo_variants_train_resume_and_evaluate_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from border_py.run.cli import main

    run = tmp_path / "dqn"
    flags = ["--model-dir", str(run), "--actors", "1", "--no-progress", "--set", "trainer.max_opts=1000"]
    assert main(["train", "dqn", "--env", "CartPole-v1", "--variant", "async", *flags]) == 0
    final = latest_checkpoint(run)
    assert final is not None
    assert load_meta(final)["config"]["async"]["n_actors"] == 1  # --actors reached the trainer
    assert "n_actors: 1" in (run / "config.yaml").read_text()
    assert main(["resume", "--model-dir", str(run), "--set", "trainer.max_opts=1100", "--no-progress"]) == 0
    assert "resuming from" in capsys.readouterr().out
    assert main(["eval", "--model-dir", str(run)]) == 0
    sac = [
        "--model-dir",
        str(tmp_path / "sac"),
        "--no-progress",
        "--set",
        "trainer.max_opts=300",
        "trainer.eval_interval=300",
    ]
    assert main(["train", "sac", "--env", "Pendulum-v1", "--variant", "async", *sac]) == 0


def test_the_async_example_program_trains_resumes_evaluates_and_exports_with_its_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.run.examples_table import run_example

    run = tmp_path / "run"
    tiny = [
        "--no-progress",
        "--set",
        "trainer.max_opts=300",
        "trainer.eval_interval=300",
        "distributed.n_actors=1",
    ]
    assert run_example("dqn_cartpole_async", ["--train", "--model-dir", str(run), *tiny], monkeypatch) == 0
    assert "n_actors: 1" in (run / "config.yaml").read_text()
    more = ["--resume", "--model-dir", str(run), "--no-progress", "--set", "trainer.max_opts=400"]
    assert run_example("dqn_cartpole_async", more, monkeypatch) == 0
    assert "resuming from" in capsys.readouterr().out
    assert run_example("dqn_cartpole_async", ["--eval", "--model-dir", str(run)], monkeypatch) == 0
    out = tmp_path / "exported"
    assert (
        run_example("dqn_cartpole_async", ["--export", str(out), "--model-dir", str(run)], monkeypatch) == 0
    )
    assert {p.name for p in out.iterdir()} == {"policy.json", "weights.npz", "policy.onnx"}
