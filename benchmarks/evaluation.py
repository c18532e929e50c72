"""Evaluation: 10 CartPole episodes of a 64x64 policy, side by side in numpy (`DefaultEvaluator`'s
default) against one after another through the agent's own acting (the evaluator before issue 38).

The policy is a 64x64 DQN whose weights hold a linear controller that balances the pole (every episode
lasts 500 steps, as a trained policy's do), so the evaluations measured are the zoo's DQN CartPole ones.
"""

from __future__ import annotations

import torch

from benchmarks.common import Row, Workload, compare
from border_py.agents.dqn import Dqn, DqnConfig
from border_py.base import Spaces
from border_py.envs import GymEnvConfig
from border_py.evaluator import DefaultEvaluator

ENV = "CartPole-v1"
EPISODES = 10
CONTROLLER = (0.01, 0.1, 1.0, 0.5)
"""Push right when ``w . obs > 0``: 500 steps on each of the 10 evaluation episodes."""


def balancing_dqn(numpy_acting: bool) -> Dqn:
    """A 64x64 DQN in eval mode whose Q-values are ``relu(w . obs)`` (right) and ``relu(-w . obs)`` (left),
    every other weight small noise: the full network's arithmetic, a balancing policy's episodes."""
    agent = Dqn(DqnConfig(hidden=(64, 64), numpy_acting=numpy_acting), Spaces(obs_shape=(4,), n_actions=2), 0)
    first, second, out = (m for m in agent.parts.net.net.modules() if isinstance(m, torch.nn.Linear))
    w = torch.tensor(CONTROLLER)
    with torch.no_grad():
        for layer in (first, second, out):
            layer.weight.mul_(1e-4)
            layer.bias.zero_()
        first.weight[0], first.weight[1] = w, -w
        second.weight[0, 0], second.weight[1, 1] = 1.0, 1.0
        out.weight[1, 0], out.weight[0, 1] = 1.0, 1.0
    agent.eval()
    return agent


def evaluations(side_by_side: bool, numpy_acting: bool) -> Workload:
    """``n`` evaluations of 10 episodes: side by side through the numpy policy (10 envs), or one after
    another through the agent's ``sample`` (torch, or DQN's numpy acting over its parameters' views)."""
    config = GymEnvConfig(name=ENV)
    agent = balancing_dqn(numpy_acting)
    if side_by_side:
        evaluator = DefaultEvaluator(config.build(seed=0), EPISODES, make_env=lambda: config.build(seed=0))
    else:
        evaluator = DefaultEvaluator(config.build(seed=0), EPISODES, numpy_acting=False)
    returns, _ = evaluator.episodes(agent)
    assert returns == [500.0] * EPISODES, returns  # a balancing policy: the workload is what it says
    # The envs live as long as the workload: closed with the process (a benchmark's envs are CartPoles).

    def run(n: int) -> None:
        for _ in range(n):
            evaluator.episodes(agent)

    return run


def run(threads: int, quick: bool) -> list[Row]:
    """The evaluation rows at ``threads`` torch threads (evaluations of 10 episodes a second)."""
    n = 2 if quick else 10
    rows = []
    for numpy_acting, reference in (
        (False, "one after another, torch acting"),
        (True, "one after another, DQN's numpy acting"),
    ):
        ours, before = compare(evaluations(True, True), evaluations(False, numpy_acting), n)
        rows.append(
            Row(
                name=f"evaluation, {EPISODES} CartPole episodes of 500 steps, 64x64 policy (evaluations/s)",
                threads=threads,
                ours=ours.median,
                reference=before.median,
                reference_name=reference,
                unit="/s",
                target=3.0 if not numpy_acting else None,
                note=""
                if not numpy_acting
                else "DQN acted through numpy one episode after another before this change",
            )
        )
    return rows


if __name__ == "__main__":
    from benchmarks.common import table

    torch.set_num_threads(1)
    print(table(run(1, quick=False)))
