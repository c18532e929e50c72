"""The peers of `benchmarks.peers` and their settings: RL Zoo's (or the zoo entry's, where border_py's entry
departs from RL Zoo's) for each (algorithm, env) compared, in the peer library's own keyword arguments.
``n_envs`` and ``normalize`` (RL Zoo's keys) build the peer's vector env and its ``VecNormalize``; a
learning rate or clip range ``"lin_X"`` falls linearly from X to 0 over the run, as RL Zoo's does; a
``policy_kwargs`` ``activation_fn`` names its ``torch.nn`` class (``"ReLU"``), turned into it in the peer's
process. ``ours`` lists the ``--set`` overrides our side takes where the pair compared departs from the
zoo entry (a width or budget this CPU affords). Every other pair RL Zoo has an entry for is that entry
(`rlzoo_settings`), read from the vendored ``campaigns/rlzoo/hyperparams`` without evaluating anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PEERS = {
    "a2c": ("stable_baselines3", "A2C"),
    "qrdqn": ("sb3_contrib", "QRDQN"),
    "tqc": ("sb3_contrib", "TQC"),
    "sac": ("sbx", "SAC"),
    "td3": ("sbx", "TD3"),
    "crossq": ("sbx", "CrossQ"),
    "recurrent_ppo": ("sb3_contrib", "RecurrentPPO"),
}
"""Each algorithm's peer: the package and class (SB3's A2C, sb3-contrib's for those SB3 lacks, SBX's, the
JAX port, for the rest: what a user after speed picks)."""

_LSTM_64 = {"lstm_hidden_size": 64, "enable_critic_lstm": True}
"""The LSTMs of RL Zoo's ppo_lstm.yml entries: 64 units, one for the actor and one for the critic."""
_PI_VF_64 = {"pi": [64], "vf": [64]}
_LSTM_KEYS = ("lstm_hidden_size", "n_lstm_layers", "shared_lstm", "enable_critic_lstm", "lstm_kwargs")


def _without_lstm(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` of RecurrentPPO for SB3's PPO: ``MlpPolicy``, the policy's keyword arguments without the
    LSTM's."""
    kwargs = {k: v for k, v in settings["policy_kwargs"].items() if k not in _LSTM_KEYS}
    return {**settings, "peer": ("stable_baselines3", "PPO"), "policy": "MlpPolicy", "policy_kwargs": kwargs}


# RL Zoo's hyperparams/qrdqn.yml (the settings border_py/zoo/qrdqn.yaml translates), for sb3-contrib.
PEER_SETTINGS: dict[tuple[str, str], dict[str, Any]] = {
    ("qrdqn", "CartPole-v1"): {
        "n_timesteps": 50_000,
        "learning_rate": 2.3e-3,
        "batch_size": 64,
        "buffer_size": 100_000,
        "learning_starts": 1_000,
        "gamma": 0.99,
        "target_update_interval": 10,
        "train_freq": 256,
        "gradient_steps": 128,
        "exploration_fraction": 0.16,
        "exploration_final_eps": 0.04,
        "policy_kwargs": {"net_arch": [256, 256], "n_quantiles": 10},
    },
    ("qrdqn", "Acrobot-v1"): {
        "n_timesteps": 100_000,
        "learning_rate": 6.3e-4,
        "batch_size": 128,
        "buffer_size": 50_000,
        "learning_starts": 0,
        "gamma": 0.99,
        "target_update_interval": 250,
        "train_freq": 4,
        "gradient_steps": -1,
        "exploration_fraction": 0.12,
        "exploration_final_eps": 0.1,
        "policy_kwargs": {"net_arch": [256, 256], "n_quantiles": 25},
    },
    # The zoo's tqc Pendulum-v1 entry: the zoo's SAC settings with sb3-contrib's TQC critics (RL Zoo's own
    # TQC entry uses gSDE, which border_py's SAC and TQC do not have yet); evaluated every 1,000 env steps
    # as ours is.
    ("tqc", "Pendulum-v1"): {
        "n_timesteps": 20_000,
        "eval_every": 1_000,
        "learning_rate": 1e-3,
        "buffer_size": 100_000,
        "batch_size": 256,
        "learning_starts": 256,
        "tau": 0.005,
        "gamma": 0.99,
        "top_quantiles_to_drop_per_net": 2,
        "policy_kwargs": {"net_arch": [256, 256], "n_critics": 2, "n_quantiles": 25},
    },
    # RL Zoo's sac.yml Pendulum-v1 (lr 1e-3, SB3's defaults otherwise) with the zoo entry's 256 warm-up env
    # steps in place of SB3's 100, for SBX.
    ("sac", "Pendulum-v1"): {
        "n_timesteps": 20_000,
        "eval_every": 1_000,
        "learning_rate": 1e-3,
        "buffer_size": 100_000,
        "batch_size": 256,
        "learning_starts": 256,
        "policy_kwargs": {"net_arch": [256, 256]},
    },
    # RL Zoo's sac.yml MountainCarContinuous-v0 (the zoo's entry translates it), for SB3's SAC: it needs
    # gSDE, which SBX's SAC lacks.
    ("sac", "MountainCarContinuous-v0"): {
        "peer": ("stable_baselines3", "SAC"),
        "n_timesteps": 50_000,
        "learning_rate": 3e-4,
        "buffer_size": 50_000,
        "batch_size": 512,
        "ent_coef": 0.1,
        "train_freq": 32,
        "gradient_steps": 32,
        "gamma": 0.9999,
        "tau": 0.01,
        "learning_starts": 0,
        "use_sde": True,
        "policy_kwargs": {"log_std_init": -3.67, "net_arch": [64, 64], "use_expln": True},
    },
    # RL Zoo's td3.yml Pendulum-v1 (gamma 0.98, buffer 2e5, 10,000 warm-up env steps, [400, 300], lr 1e-3,
    # Gaussian noise of std 0.1), for SBX.
    ("td3", "Pendulum-v1"): {
        "n_timesteps": 20_000,
        "eval_every": 1_000,
        "learning_rate": 1e-3,
        "buffer_size": 200_000,
        "gamma": 0.98,
        "learning_starts": 10_000,
        "action_noise": 0.1,
        "policy_kwargs": {"net_arch": [400, 300]},
    },
    # RL Zoo's crossq.yml Pendulum-v1 (SBX's defaults with 256x256 networks, the policy every 2nd update)
    # with the zoo entry's 256 warm-up env steps in place of SBX's 100, for SBX.
    ("crossq", "Pendulum-v1"): {
        "n_timesteps": 20_000,
        "eval_every": 1_000,
        "buffer_size": 100_000,
        "learning_starts": 256,
        "policy_delay": 2,
        "policy_kwargs": {"net_arch": [256, 256]},
    },
    # RL Zoo's CrossQ MuJoCo settings (the zoo's HalfCheetah-v5 entry) at a budget and width this CPU runs:
    # 100,000 env steps, 256x256 critics on both sides (RL Zoo's are 2048x2048, about 0.5 s an update on
    # one core here: 2 weeks for its 5M; 256x256 is RL Zoo's own Pendulum width). "ours": the same cut
    # given to `border-py train` as overrides of the entry.
    ("crossq", "HalfCheetah-v5"): {
        "n_timesteps": 100_000,
        "eval_every": 10_000,
        "learning_starts": 5_000,
        "policy_delay": 3,
        "policy_kwargs": {"net_arch": {"pi": [256, 256], "qf": [256, 256]}},
        "ours": ["agent.critic_hidden=[256,256]", "trainer.max_env_steps=100000"],
    },
    # RL Zoo's a2c.yml (rl_zoo3 2.7.0), SB3's A2C defaults otherwise (rollouts of 5, RMSprop at 7e-4).
    ("a2c", "CartPole-v1"): {"n_timesteps": 500_000, "eval_every": 25_000, "n_envs": 8, "ent_coef": 0.0},
    ("a2c", "Acrobot-v1"): {
        "n_timesteps": 500_000,
        "eval_every": 20_000,
        "n_envs": 16,
        "normalize": True,
        "ent_coef": 0.0,
    },
    ("a2c", "Pendulum-v1"): {
        "n_timesteps": 1_000_000,
        "eval_every": 25_600,
        "n_envs": 8,
        "normalize": True,
        "ent_coef": 0.0,
        "max_grad_norm": 0.5,
        "n_steps": 8,
        "gae_lambda": 0.9,
        "vf_coef": 0.4,
        "gamma": 0.9,
        "use_rms_prop": True,
        "normalize_advantage": False,
        "learning_rate": "lin_7e-4",
        "use_sde": True,
        "policy_kwargs": {"log_std_init": -2.0, "ortho_init": False},
    },
    # border_py's masked env (border_py/envs/masked_envs.py), the zoo's ppo entry for it: SB3's PPO defaults
    # over 8 envs with rollouts of 64, for sb3-contrib's MaskablePPO, which reads the env's action_masks()
    # (MultiInputPolicy: the dict's parts flattened and concatenated, as border_py lays them).
    ("ppo", "border_py/PickDistinct-v0"): {
        "peer": ("sb3_contrib", "MaskablePPO"),
        "policy": "MultiInputPolicy",
        "n_timesteps": 102_400,
        "eval_every": 10_240,
        "n_envs": 8,
        "n_steps": 64,
    },
    # RL Zoo 2.9.2's ppo_lstm.yml, for sb3-contrib's RecurrentPPO on border_py's velocity-free envs
    # (border_py/envs/no_velocity.py, RL Zoo's CartPoleNoVel-v1 and PendulumNoVel-v1).
    ("recurrent_ppo", "border_py/CartPoleNoVel-v1"): {
        "policy": "MlpLstmPolicy",
        "n_timesteps": 100_000,
        "normalize": True,
        "n_envs": 8,
        "n_steps": 32,
        "batch_size": 256,
        "gae_lambda": 0.8,
        "gamma": 0.98,
        "n_epochs": 20,
        "ent_coef": 0.0,
        "learning_rate": "lin_0.001",
        "clip_range": "lin_0.2",
        "policy_kwargs": {**_LSTM_64, "ortho_init": False, "activation_fn": "ReLU", "net_arch": _PI_VF_64},
    },
    ("recurrent_ppo", "border_py/PendulumNoVel-v1"): {
        "policy": "MlpLstmPolicy",
        "n_timesteps": 100_000,
        "normalize": True,
        "n_envs": 4,
        "n_steps": 1024,
        "batch_size": 128,  # RecurrentPPO's default, stated for the plain PPO row (SB3's PPO's is 64)
        "gae_lambda": 0.95,
        "gamma": 0.9,
        "n_epochs": 10,
        "ent_coef": 0.0,
        "learning_rate": 1e-3,
        "clip_range": 0.2,
        "use_sde": True,
        "sde_sample_freq": 4,
        "policy_kwargs": {**_LSTM_64, "ortho_init": False, "activation_fn": "ReLU", "net_arch": _PI_VF_64},
    },
}
# SB3's PPO at the same settings without the LSTMs: what memory adds on the same tasks.
PEER_SETTINGS |= {
    ("ppo", env_id): _without_lstm(PEER_SETTINGS[("recurrent_ppo", env_id)])
    for env_id in ("border_py/CartPoleNoVel-v1", "border_py/PendulumNoVel-v1")
}


def linear(start: float, share: float = 1.0) -> Any:
    """RL Zoo's ``lin_X``: X times the progress remaining (1 at the start of the run, 0 at its end), of a
    run ``share`` of whose budget is trained (a cut run follows the full run's schedule, as ours does)."""
    return lambda progress_remaining: start * (1 - (1 - progress_remaining) * share)


def decoded(settings: dict[str, Any], share: float = 1.0) -> dict[str, Any]:
    """A copy of ``settings`` with their data turned into SB3's objects: ``"lin_X"`` schedules (RL Zoo's
    keys that take one) and ``policy_kwargs``' ``activation_fn``, a ``torch.nn`` class by name (RL Zoo's
    YAML evaluates ``nn.ReLU``; here a name is looked up among the few allowed, never evaluated). Where
    only ``share`` of the budget is trained (``--max-env-steps``), the schedules and the exploration
    fraction stay those of the full budget: the cut run is the full run's start, on both sides."""
    import torch

    out = dict(settings)
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        value = out.get(key)
        if isinstance(value, str) and value.startswith("lin_"):
            out[key] = linear(float(value.removeprefix("lin_")), share)
    if "exploration_fraction" in out:  # SB3's is of the steps handed to learn(); > 1 is a prefix
        out["exploration_fraction"] /= share
    policy_kwargs = dict(out.get("policy_kwargs", {}))
    if "activation_fn" in policy_kwargs:
        activations = {
            "ReLU": torch.nn.ReLU,
            "Tanh": torch.nn.Tanh,
            "ELU": torch.nn.ELU,
            "SiLU": torch.nn.SiLU,
        }
        policy_kwargs["activation_fn"] = activations[policy_kwargs["activation_fn"]]
        out["policy_kwargs"] = policy_kwargs
    return out


# RL Zoo's own entries (the settings the zoo's translated entries come from), read from the vendored
# hyperparams/<algo>.yml, for each (algorithm, env) the rows above do not state: the peer is "SB3 + RL Zoo".
RLZOO_HYPERPARAMS = Path(__file__).resolve().parents[1] / "campaigns" / "rlzoo" / "hyperparams"
"""rl_zoo3 2.9.2's hyperparameter files, as `campaigns.rlzoo` vendors them."""
RLZOO_PEERS = {
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
    "sac": ("stable_baselines3", "SAC"),
    "td3": ("stable_baselines3", "TD3"),
    "qrdqn": ("sb3_contrib", "QRDQN"),
    "tqc": ("sb3_contrib", "TQC"),
}
"""The class rl_zoo3 trains for each algorithm (SB3's, sb3-contrib's for QR-DQN and TQC; never SBX)."""
RLZOO_EVAL_EVERY = 25_000
"""rl_zoo3's evaluation interval in env steps of all sub-envs together (the translated entries' too)."""
_REFUSED_KEYS = ("env_wrapper", "frame_stack", "vec_env_wrapper", "callback", "replay_buffer_class")
"""RL Zoo's keys that wrap the env or name code: not constructor arguments, and not read here."""
_SCHEDULED = ("learning_rate", "clip_range", "clip_range_vf")
"""The keys rl_zoo3 reads a ``"lin_X"`` schedule for (``delta_std`` is ARS's)."""


def sb3_kwargs(algo: str, entry: dict[str, Any]) -> dict[str, Any]:
    """RL Zoo's ``entry`` of ``algo`` as this module's settings, the way rl_zoo3's ``ExperimentManager``
    reads it: ``n_timesteps`` an int, ``normalize`` a bool or its ``VecNormalize`` keywords (RL Zoo's
    ``"dict(norm_obs=..., ...)"``), ``policy_kwargs`` read by `campaigns.rlzoo.literal` (never
    evaluated) with ``activation_fn`` by name, ``"lin_X"`` kept for `benchmarks.peers` to schedule,
    ``train_freq`` ``[n, "episode"]`` a tuple, ``noise_type``/``noise_std`` kept for the peer to build
    (it knows the action space).

    Raises:
        ValueError: a key that wraps the env or names code, a schedule other than ``lin_``, or a name in
            ``policy_kwargs`` other than a ``torch.nn`` activation.
    """
    from campaigns.rlzoo.literal import parse_literal

    settings: dict[str, Any] = {"peer": RLZOO_PEERS[algo], "eval_every": RLZOO_EVAL_EVERY}
    for key, value in entry.items():
        if key in _REFUSED_KEYS:
            raise ValueError(f"{algo}: RL Zoo's {key} is not read here")
        if key == "n_timesteps":
            value = int(value)
        elif key == "normalize" and isinstance(value, str):
            value = parse_literal(value)
        elif key == "policy_kwargs":
            value = _policy_kwargs(parse_literal(value) if isinstance(value, str) else dict(value))
        elif key == "train_freq" and isinstance(value, list):
            value = tuple(value)
        elif key in _SCHEDULED and isinstance(value, str) and not value.startswith("lin_"):
            raise ValueError(f"{algo}: {key} {value!r} is not a lin_ schedule")
        settings[key] = value
    if settings.get("normalize") is False:
        del settings["normalize"]
    return settings


def _policy_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``policy_kwargs`` with ``activation_fn`` ``nn.ReLU`` as ``"ReLU"``; any other name is refused."""
    from campaigns.rlzoo.literal import Symbol

    out = dict(kwargs)
    for key, value in kwargs.items():
        if isinstance(value, Symbol):
            module, _, name = value.name.rpartition(".")
            if key != "activation_fn" or module not in ("nn", "th.nn", "torch.nn"):
                raise ValueError(f"policy_kwargs {key}={value.name}: only torch.nn activations are read")
            out[key] = name
    return out


def rlzoo_settings(algos: tuple[str, ...] = tuple(RLZOO_PEERS)) -> dict[tuple[str, str], dict[str, Any]]:
    """Every RL Zoo entry of ``algos`` whose env Gymnasium 1.x has (its id there: ``LunarLander-v3``,
    ``Hopper-v5``, as `campaigns.rlzoo.envs` maps them), as settings; entries `sb3_kwargs` refuses (Atari's
    wrappers, HER's buffer) are left out."""
    import yaml

    from campaigns.rlzoo.envs import EnvId, gym_id

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for algo in algos:
        entries = yaml.safe_load((RLZOO_HYPERPARAMS / f"{algo}.yml").read_text())
        for key, entry in entries.items():
            env = gym_id(key)
            if not isinstance(env, EnvId) or (algo, env.gym) in rows:
                continue
            try:
                rows[(algo, env.gym)] = {**sb3_kwargs(algo, entry), "rlzoo": f"{algo}.yml {key}"}
            except ValueError:
                continue
    return rows


# The rows above stand where they state a pair (several are RL Zoo's entries with the zoo's warm-up);
# every other pair RL Zoo has is RL Zoo's own entry.
PEER_SETTINGS |= {k: v for k, v in rlzoo_settings().items() if k not in PEER_SETTINGS}
