"""Every zoo entry (and variant) builds and trains a few steps through the run layer, so a broken or
stale entry fails here, not in a user's hands."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from border_py.checkpoint import load_meta
from border_py.run import (
    TrainOptions,
    evaluate,
    evaluate_policy,
    experiment_from_dict,
    load_policy,
    train,
    zoo,
)
from tests.run.conftest import make_entry_dataset, tiny

WITHOUT_ENTRY = {"iqn": "Acrobot-v1", "sac": "InvertedPendulum-v5", "ppo": "Pusher-v5"}
"""Envs the zoo has no entry for (nor RL Zoo, whose entries the zoo holds): the algorithm's defaults apply."""

ENTRIES = [
    (algo, env_id, variant)
    for algo in zoo.algorithms()
    for env_id in [*zoo.env_ids(algo), *([WITHOUT_ENTRY[algo]] if algo in WITHOUT_ENTRY else [])]
    for variant in [None, *zoo.variants(algo, env_id)]
    if variant != "async"  # actors on Ray: tests/integration/test_distributed.py trains these variants
]


def _ids(entry: tuple[str, str, str | None]) -> str:
    algo, env_id, variant = entry
    return f"{algo}-{env_id}" + (f"-{variant}" if variant else "")


@pytest.mark.smoke
@pytest.mark.parametrize("entry", ENTRIES, ids=[_ids(e) for e in ENTRIES])
def test_every_zoo_entry_builds_trains_a_few_steps_and_evaluates(
    entry: tuple[str, str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working directory
    algo, env_id, variant = entry
    found = zoo.entry(algo, env_id, variant)
    assert found.tuned == (env_id != WITHOUT_ENTRY.get(algo))
    data = found.data
    datasets = tmp_path / "datasets"
    make_entry_dataset(data, datasets)
    if data.get("init_from", "") is None or (algo == "awac" and "dataset" not in data):
        # Fine-tuning starts from an offline run's best/: make one first.
        offline = experiment_from_dict(
            tiny(zoo.entry("awac", "pendulum-medium-v0").data, tmp_path / "off", datasets)
        )
        train(offline, TrainOptions(progress=False, quiet=True))
        data = {**data, "init_from": str(tmp_path / "off" / "best")}
    experiment = experiment_from_dict(tiny(data, tmp_path / "run", datasets), f"{algo} {env_id}")
    assert experiment.algo == algo
    assert experiment.env_id == env_id or "ALE" in env_id  # the key is the env's (an Atari entry: the game)
    result = train(experiment, TrainOptions(progress=False, quiet=True))
    assert result.opt_steps == 4
    assert load_meta(tmp_path / "run" / "4")["opt_steps"] == 4
    if experiment.trainer.eval_interval is not None:
        assert evaluate(experiment, tmp_path / "run", quiet=True) == result.best_score
    # Every agent kind loads into a typed policy that acts on one observation or a batch, and evaluates.
    policy = load_policy(tmp_path / "run", "4")
    obs = np.zeros(policy.spaces.obs_shape, np.uint8 if "ALE" in env_id else np.float32)
    if policy.spaces.action_mask is not None:  # an observation must allow some action
        obs[policy.spaces.action_mask] = 1
    # A batch rounds as a batched matmul does: box actions within float32 rounding of one at a time. A
    # policy with memory acts through predict_with_memory (predict refuses it), each call a new episode.
    if policy.recurrent:
        act = policy.predict_with_memory
        one, batch = act(obs)[0], act(np.stack([obs, obs]))[0][0]
    else:
        one, batch = policy.predict(obs), policy.predict(np.stack([obs, obs]))[0]
    np.testing.assert_allclose(batch, one, rtol=1e-5, atol=1e-6)
    evaluation = evaluate_policy(policy, n_episodes=1)
    assert evaluation.mean == evaluate(experiment, tmp_path / "run", "4", episodes=1, quiet=True)
