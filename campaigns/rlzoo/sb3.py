"""What an RL Zoo entry means where it is silent: the defaults of Stable-Baselines3 and sb3-contrib 2.9.2
(the versions rl_zoo3 2.9.2 requires), read from their constructors and policies.

border_py's zoo defaults are not SB3's (DQN's are 256x256 with 1,000 warm-up steps, SB3's 64x64 with 100),
so a key an RL Zoo entry omits is translated from SB3's default, not left to border_py's.
"""

from __future__ import annotations

from typing import Any

from campaigns.rlzoo.literal import Symbol

SB3_VERSION = "2.9.2"
"""stable-baselines3 and sb3-contrib, as rl_zoo3 2.9.2 pins them."""

_OFF_POLICY: dict[str, Any] = {
    "buffer_size": 1_000_000, "learning_starts": 100, "batch_size": 256, "tau": 0.005, "gamma": 0.99,
    "train_freq": 1, "gradient_steps": 1, "n_steps": 1, "n_envs": 1, "policy": "MlpPolicy",
}  # fmt: skip
_Q_LEARNING: dict[str, Any] = {
    **_OFF_POLICY, "batch_size": 32, "tau": 1.0, "train_freq": 4, "target_update_interval": 10_000,
    "exploration_initial_eps": 1.0,
}  # fmt: skip
_SOFT: dict[str, Any] = {
    **_OFF_POLICY, "learning_rate": 3e-4, "ent_coef": "auto", "target_entropy": "auto",
    "target_update_interval": 1, "use_sde": False, "sde_sample_freq": -1, "use_sde_at_warmup": False,
}  # fmt: skip
_ON_POLICY: dict[str, Any] = {
    "gamma": 0.99, "ent_coef": 0.0, "vf_coef": 0.5, "max_grad_norm": 0.5, "use_sde": False,
    "sde_sample_freq": -1, "n_envs": 1, "normalize": False, "policy": "MlpPolicy",
}  # fmt: skip

DEFAULTS: dict[str, dict[str, Any]] = {
    "dqn": {**_Q_LEARNING, "learning_rate": 1e-4, "exploration_fraction": 0.1,
            "exploration_final_eps": 0.05, "max_grad_norm": 10.0},
    "qrdqn": {**_Q_LEARNING, "learning_rate": 5e-5, "exploration_fraction": 0.005,
              "exploration_final_eps": 0.01, "max_grad_norm": None},
    "sac": _SOFT,
    "tqc": {**_SOFT, "top_quantiles_to_drop_per_net": 2},
    "td3": {**_OFF_POLICY, "learning_rate": 1e-3, "policy_delay": 2, "target_policy_noise": 0.2,
            "target_noise_clip": 0.5, "noise_type": None, "noise_std": 0.0},
    # DDPG is SB3's TD3 without its tricks: one critic, no policy delay, no target smoothing.
    "ddpg": {**_OFF_POLICY, "learning_rate": 1e-3, "noise_type": None, "noise_std": 0.0},
    "ppo": {**_ON_POLICY, "learning_rate": 3e-4, "n_steps": 2048, "batch_size": 64, "n_epochs": 10,
            "gae_lambda": 0.95, "clip_range": 0.2, "clip_range_vf": None, "normalize_advantage": True,
            "target_kl": None},
    "a2c": {**_ON_POLICY, "learning_rate": 7e-4, "n_steps": 5, "gae_lambda": 1.0, "rms_prop_eps": 1e-5,
            "use_rms_prop": True, "normalize_advantage": False},
}  # fmt: skip
"""Each algorithm's hyperparameters where an RL Zoo entry omits them (``n_envs`` and ``normalize`` are RL
Zoo's own keys, 1 and off)."""

_ACTOR_CRITIC_POLICY = {"net_arch": [64, 64], "activation_fn": Symbol("nn.Tanh"), "ortho_init": True,
                        "log_std_init": 0.0}  # fmt: skip
_GSDE_POLICY = {"log_std_init": -3.0, "use_expln": False, "clip_mean": 2.0}
"""SAC's and TQC's gSDE keywords (their policies' defaults; read with ``use_sde`` only)."""
POLICY_DEFAULTS: dict[str, dict[str, Any]] = {
    "dqn": {"net_arch": [64, 64], "activation_fn": Symbol("nn.ReLU")},
    "qrdqn": {"net_arch": [64, 64], "activation_fn": Symbol("nn.ReLU"), "n_quantiles": 200},
    "sac": {"net_arch": [256, 256], "activation_fn": Symbol("nn.ReLU"), "n_critics": 2, **_GSDE_POLICY},
    "tqc": {
        "net_arch": [256, 256],
        "activation_fn": Symbol("nn.ReLU"),
        "n_critics": 2,
        "n_quantiles": 25,
        **_GSDE_POLICY,
    },
    "td3": {"net_arch": [400, 300], "activation_fn": Symbol("nn.ReLU"), "n_critics": 2},
    "ddpg": {"net_arch": [400, 300], "activation_fn": Symbol("nn.ReLU"), "n_critics": 1},
    "ppo": _ACTOR_CRITIC_POLICY,
    "a2c": _ACTOR_CRITIC_POLICY,
}
"""Each algorithm's ``policy_kwargs`` where an entry omits them."""
