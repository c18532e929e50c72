"""A real MLflow tracking server for the session: SQLite backend store, local artifact root, bound to
127.0.0.1 on a free port, stopped at the end."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MlflowServer:
    """An ``mlflow server`` on 127.0.0.1 with a SQLite store in ``root``, that a test may stop and start
    again on the same port and store (a server that dies and comes back)."""

    def __init__(self, root: Path) -> None:
        self.root, self.port = root, _free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # Job execution off: the server's memory falls from about 2.4 GB to about 0.5 GB.
        env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
        log = self.root / "server.log"
        with log.open("a") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable, "-m", "mlflow", "server",
                    "--backend-store-uri", f"sqlite:///{self.root / 'mlflow.db'}",
                    "--artifacts-destination", str(self.root / "artifacts"),
                    "--host", "127.0.0.1", "--port", str(self.port), "--workers", "1",
                ],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        _wait_healthy(self.uri, self.process, log)

    def kill(self) -> None:
        """Kills the server and everything it started (SIGKILL: no goodbye to the clients)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The tracking URI of a running ``mlflow server`` (skipped, saying why, without the mlflow extra)."""
    pytest.importorskip(
        "mlflow", reason="the mlflow extra is not installed (pip install 'border_py[mlflow]')"
    )
    server = MlflowServer(tmp_path_factory.mktemp("mlflow"))
    server.start()
    try:
        yield server.uri
    finally:
        server.stop()


@pytest.fixture
def own_mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MlflowServer]:
    """A server of the test's own, to kill and start again (the session's one stays up for the others)."""
    pytest.importorskip(
        "mlflow", reason="the mlflow extra is not installed (pip install 'border_py[mlflow]')"
    )
    server = MlflowServer(tmp_path_factory.mktemp("own-mlflow"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _wait_healthy(uri: str, server: subprocess.Popen[bytes], log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"mlflow server exited with {server.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{uri}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(f"mlflow server did not answer /health within {timeout:.0f} s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[None]:
    """One local Ray for the whole session (starting one takes 5-8 s and about 1.5 GB), bound to
    127.0.0.1; skipped, saying why, without the distributed extra."""
    ray = pytest.importorskip(
        "ray", reason="the distributed extra is not installed (pip install 'border_py[distributed]')"
    )
    ray.init(
        num_cpus=4,
        include_dashboard=False,
        logging_level="ERROR",
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
    try:
        yield
    finally:
        ray.shutdown()
