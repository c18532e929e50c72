"""Goal relabelling side by side on gymnasium-robotics' ``FetchReach-v4`` (the robotics extra), the standard
HER check: border_py's SAC with HER (the zoo's ``sac`` entry for the env) and Stable-Baselines3's SAC +
``HerReplayBuffer`` at the same settings and budget (RL Zoo's FetchReach-v1 entry: 20,000 env steps,
learning rates 1e-3, 64x64, batch 256, tau 0.005, gamma 0.95, 1,000 warm-up steps, ``future`` with k = 4),
seed by seed. Each final model plays the same 100 deterministic episodes (reset seeds 10,000 + i): the
success rate and the mean return (-50 never reaching the goal, 0 there from the first step); with the
training wall-clock. RL Zoo's entry also normalises observations and rewards (``VecNormalize``), which
border_py's SAC has no counterpart for: both sides run without it, and ``sb3 --normalize`` runs SB3 as RL
Zoo does, for reference.

    nice -n 10 .venv/bin/python -m benchmarks.her_fetch ours --seeds 0 1 2
    nice -n 10 .venv-peers/bin/python -m benchmarks.her_fetch sb3 --seeds 0 1 2
    nice -n 10 .venv-peers/bin/python -m benchmarks.her_fetch sb3 --normalize --seeds 0 1 2
    .venv/bin/python -m benchmarks.her_fetch table

``--algo tqc`` runs TQC on both sides instead, into ``runs/her_fetch_tqc`` (the SAC runs stay in
``runs/her_fetch``): the zoo's ``tqc`` entry for the env beside sb3-contrib's TQC + ``HerReplayBuffer`` at
RL Zoo's TQC FetchReach-v1 settings (campaigns/rlzoo/hyperparams/tqc.yml: SAC's above with one critic of
25 quantiles, the top 2 dropped), again without ``VecNormalize`` unless ``sb3 --normalize``:

    nice -n 10 .venv/bin/python -m benchmarks.her_fetch ours --algo tqc --seeds 0 1 2
    nice -n 10 .venv-peers/bin/python -m benchmarks.her_fetch sb3 --algo tqc --seeds 0 1 2
    .venv/bin/python -m benchmarks.her_fetch table --algo tqc

``--steps N`` gives both sides a shorter budget (``--out`` apart): 8,000 and 12,000 catch them mid-way.

Both virtualenvs need gymnasium-robotics (``pip install -c constraints.txt gymnasium-robotics``; the
package's ``robotics`` extra): both sides make the env through ``border_py.envs.robotics``, whose fix lets
its Fetch envs run on mujoco 4. Each run writes ``<out>/<side>/seed<N>.json``; the sides are
``benchmarks.her_sides``'s.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.her_sides import Task, main
from border_py.envs.robotics import import_robotics

ENV = "FetchReach-v4"
SB3_SETTINGS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "buffer_size": 1_000_000,
    "learning_starts": 1_000,
    "batch_size": 256,
    "tau": 0.005,
    "gamma": 0.95,
    "ent_coef": "auto",
    "train_freq": 1,
    "gradient_steps": 1,
    "policy_kwargs": {"net_arch": [64, 64]},
    "replay_buffer_kwargs": {"n_sampled_goal": 4, "goal_selection_strategy": "future"},
}
"""RL Zoo's FetchReach-v1 entry (campaigns/rlzoo/hyperparams/sac.yml) but ``normalize``: the zoo's sac entry
for the env (border_py/zoo/sac.yaml) in SB3's names."""

TQC_SB3_SETTINGS: dict[str, Any] = {
    **SB3_SETTINGS,
    "top_quantiles_to_drop_per_net": 2,
    "policy_kwargs": {"net_arch": [64, 64], "n_critics": 1, "n_quantiles": 25},
}
"""RL Zoo's TQC FetchReach-v1 entry (campaigns/rlzoo/hyperparams/tqc.yml) but ``normalize``: its SAC entry's
settings with ``n_critics=1`` (sb3-contrib's 25 quantiles and top 2 dropped spelled out); the zoo's tqc
entry for the env (border_py/zoo/tqc.yaml) in sb3-contrib's names."""


def register_env() -> None:
    """Imports gymnasium-robotics (its ids register) with border_py's fix for mujoco 4."""
    import_robotics(ENV)


FETCH_REACH = Task(
    env=ENV,
    register=register_env,
    steps=20_000,
    sb3_settings=SB3_SETTINGS,
    variants=("",),
    out=Path("runs/her_fetch"),
)
FETCH_REACH_TQC = replace(
    FETCH_REACH, algo="tqc", sb3_settings=TQC_SB3_SETTINGS, out=Path("runs/her_fetch_tqc")
)
"""The same benchmark with TQC on both sides (``--algo tqc``), in its own folder."""


if __name__ == "__main__":
    sys.exit(main(FETCH_REACH, __doc__, others=(FETCH_REACH_TQC,)))
