"""The peers of `benchmarks.peers` and their settings: RL Zoo's (or the zoo entry's, where border_py's entry
departs from RL Zoo's) for each (algorithm, env) compared, in the peer library's own keyword arguments.
``n_envs`` and ``normalize`` (RL Zoo's keys) build the peer's vector env and its ``VecNormalize``; a
learning rate or clip range ``"lin_X"`` falls linearly from X to 0 over the run, as RL Zoo's does; a
``policy_kwargs`` ``activation_fn`` names its ``torch.nn`` class (``"ReLU"``), turned into it in the peer's
process."""

from __future__ import annotations

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
