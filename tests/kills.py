"""Training in a subprocess that sends itself a signal at a chosen moment: the kill tests' one driver.

The driver trains a zoo experiment through the run layer and the CLI's error handling (`guarded`), so a
signal ends it as ``border-py train`` ends: SIGKILL at once, SIGINT / SIGTERM with a checkpoint and exit
status 128 + the signal. A run that finds a checkpoint resumes from it; one that finds none starts over
(a kill before the first checkpoint may have left ``best/``, which a plain resume refuses to replace).

A moment is the k-th event of one kind, counted from 0 in each process:

- ``sample``: a sampler call (one env step of every sub-env);
- ``io``: a step of a save or a removal: a file flushed to disk, a rename, a file deleted (before and
  after each fsync and rename), so kills land inside saves of ``best/``, checkpoints and their pruning;
- ``restore``: loading a checkpoint to resume from: its check and agent files (before the run starts),
  then its buffer and unfinished episode (in the run);
- ``evaluate``: an evaluation of the trainer (the signal arrives as it begins).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).parents[1]

Moment = Literal["sample", "io", "restore", "evaluate"]

_DRIVER = """
import json, os, sys
from pathlib import Path
import border_py.checkpoint as checkpoint
import border_py.trainer.loop as loop
from border_py.model_dir import clear_checkpoints, latest_checkpoint
from border_py.run import TrainOptions, train, zoo
from border_py.run.cli import guarded
from border_py.trainer import SyncSampler
from border_py.trainer.bookkeeper import Bookkeeper

spec = json.loads(sys.argv[1])
model_dir = Path(spec["model_dir"])
events = 0

def event():
    global events
    events += 1
    if events == spec["kill_at"]:
        os.kill(os.getpid(), spec["signum"])

def counted(function, after=False):
    def wrapped(*args, **kwargs):
        event()
        result = function(*args, **kwargs)
        if after:
            event()
        return result
    return wrapped

def rmtree(path, ignore_errors=False):  # file by file, a moment after each
    for root, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name)); event()
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    if os.path.isdir(path):
        os.rmdir(path)

moment = spec["moment"]
if moment == "sample":
    SyncSampler.sample_and_push = counted(SyncSampler.sample_and_push)
elif moment == "io":
    checkpoint._fsync = counted(checkpoint._fsync, after=True)
    checkpoint.shutil = type("S", (), {"rmtree": staticmethod(rmtree)})
    Path.rename = counted(Path.rename, after=True)
elif moment == "restore":
    loop.resume_point = counted(loop.resume_point)
    loop._restore = counted(loop._restore)
elif moment == "evaluate":
    Bookkeeper._evaluate = counted(Bookkeeper._evaluate)

if latest_checkpoint(model_dir) is None and model_dir.is_dir():
    clear_checkpoints(model_dir)
experiment = zoo.experiment(spec["algo"], spec["env"], str(model_dir), **spec["changes"])

def run():
    train(experiment, TrainOptions(progress=False, quiet=True, resume=True))
    return 0

status = guarded(run)
print("events", events)
sys.exit(status)
"""


def drive(
    model_dir: Path,
    algo: str,
    env: str,
    changes: dict[str, Any],
    moment: Moment = "sample",
    kill_at: int = 0,
    signum: int = 0,
) -> subprocess.CompletedProcess[str]:
    """Trains (or resumes) the zoo's ``algo`` on ``env`` with ``changes`` (by section) into ``model_dir``
    in a subprocess that sends itself ``signum`` at the ``kill_at``-th ``moment`` (never with 0). Its last
    line of stdout is ``events <n>``: the moments it counted (when it was not killed at once)."""
    spec = {
        "model_dir": str(model_dir),
        "algo": algo,
        "env": env,
        "changes": changes,
        "moment": moment,
        "kill_at": kill_at,
        "signum": signum,
    }
    return subprocess.run(
        [sys.executable, "-c", _DRIVER, json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
