"""A saved model (``best/``, a numbered checkpoint, a fine-tuning run's): where it is below a model
directory, the agent loaded from it, and its greedy evaluation (``border-py eval``).

Examples:
    >>> import tempfile
    >>> from border_py.run import load_experiment_text, train, TrainOptions, with_trainer
    >>> experiment = load_experiment_text('''
    ... env: {name: CartPole-v1}
    ... step_processor: {gamma: 0.99}
    ... replay_buffer: {capacity: 1000}
    ... agent: {type: dqn, batch_size: 16}
    ... trainer: {max_opts: 20, warmup_period: 50, eval_interval: 20}
    ... evaluator: {n_episodes: 1}''')
    >>> with tempfile.TemporaryDirectory() as d:
    ...     experiment = with_trainer(experiment, model_dir=d)
    ...     result = train(experiment, TrainOptions(progress=False, quiet=True))
    ...     saved_model_path(Path(d)).name, evaluate(experiment, Path(d), quiet=True) == result.best_score
    ('best', True)
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from border_py.checkpoint import resolve_saved, saved_model_problem
from border_py.run.experiment import AnyExperiment, build_eval_env, build_evaluator
from border_py.run.sizes import check_episodes_fit_memory
from border_py.seeding import configure_torch

__all__ = ["evaluate", "load_agent", "play_episodes", "saved_model", "saved_model_path"]


def saved_model(path: Path, field: str) -> Path:
    """``path`` as a complete saved model (or the aside copy a crash left).

    Raises:
        FileNotFoundError: it is not one; the message names ``field`` and says what is missing.
    """
    saved = resolve_saved(path)
    problem = saved_model_problem(saved)
    if problem is not None:
        raise FileNotFoundError(f"{field} {str(path)!r} is not a saved model: {problem}")
    return saved


def saved_model_path(model_dir: Path, checkpoint: str = "best") -> Path:
    """The saved model ``checkpoint`` names below ``model_dir`` (``best``, ``25000``, ``finetune/60000``).

    Raises:
        ValueError: the name is empty, absolute, or leads out of ``model_dir`` (``..`` or a link).
        FileNotFoundError: it is not a complete saved model (what is missing is said).
    """
    rel = Path(checkpoint)
    if not checkpoint or rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"--checkpoint {checkpoint!r}: name a saved model below {model_dir} (best, 25000)")
    path = model_dir / rel
    if not path.resolve().is_relative_to(model_dir.resolve()):
        raise ValueError(f"--checkpoint {checkpoint!r}: {path} leads out of {model_dir} through a link")
    return saved_model(path, "--checkpoint" if checkpoint != "best" else "the best model")


def load_agent(experiment: AnyExperiment, saved: Path, eval_env: Any) -> Any:
    """The experiment's agent, sized by ``eval_env``, with the saved model ``saved`` loaded, in eval mode."""
    seed = experiment.trainer.seed
    agent = experiment.agent.build(eval_env.spaces, seed)
    agent.load_params(saved)
    agent.eval()
    return agent


def evaluate(
    experiment: AnyExperiment,
    model_dir: Path,
    checkpoint: str = "best",
    episodes: int | None = None,
    quiet: bool = False,
    sample: bool = False,
) -> float:
    """The greedy mean return of the saved model ``checkpoint`` over the evaluator's episodes (or
    ``episodes``), in the evaluation env seeded as in training; with ``sample``, of its actions drawn as in
    training (the agent in train mode: a PPO policy's draws, DQN's epsilon at its last opt step), which is
    how RL Zoo's benchmark table evaluates its Atari agents.

    Raises:
        ValueError: ``episodes`` < 1, or a bad checkpoint name.
        FileNotFoundError: the saved model is missing or incomplete.
    """
    if episodes is not None and episodes < 1:
        raise ValueError(f"--episodes must be >= 1, got {episodes}")
    if episodes is None:
        check_episodes_fit_memory(experiment.evaluator.n_episodes, "evaluator.n_episodes")
    else:
        check_episodes_fit_memory(episodes, "--episodes")
    configure_torch(experiment.torch_threads)
    saved = saved_model_path(model_dir, checkpoint)
    with closing(build_eval_env(experiment)) as eval_env:
        agent = load_agent(experiment, saved, eval_env)
        if sample:
            agent.train()
        returns, _ = play_episodes(experiment, eval_env, agent, episodes)
    score = float(np.mean(returns))  # the evaluator's score, as training saved best/ with
    if not quiet:
        std = float(np.std(returns))
        how = " (sampled actions)" if sample else ""
        print(f"eval{how} of {saved}: mean return {score:.1f} (std {std:.1f}) over {len(returns)} episodes")
    return score


def play_episodes(
    experiment: AnyExperiment, eval_env: Any, agent: Any, episodes: int | None = None
) -> tuple[list[float], list[int]]:
    """Each return and length of ``agent``'s episodes (in the mode it is in) in the experiment's
    evaluation env ``eval_env`` (from `build_eval_env`), played as training and ``border-py eval`` play
    them: the evaluator's episodes, or ``episodes`` of them."""
    if episodes is not None:
        experiment = attrs.evolve(
            experiment, evaluator=attrs.evolve(experiment.evaluator, n_episodes=episodes)
        )
    with closing(build_evaluator(experiment, eval_env)) as evaluator:
        return evaluator.episodes(agent)
