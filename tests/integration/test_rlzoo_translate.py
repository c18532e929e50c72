"""The RL Zoo translator (``python -m campaigns.rlzoo_translate``, issue 52): its ``policy_kwargs`` reader
evaluates nothing, its unit conversions on hand-written entries, its refusals naming every key it cannot
take, and a run over rl_zoo3 2.9.2's files whose report agrees with the YAML it writes, every written
entry built as ``border-py train`` builds it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from border_py.run import codec, zoo
from campaigns import rlzoo_translate
from campaigns.rlzoo import review as review_module
from campaigns.rlzoo.literal import LiteralRefusedError, Symbol, parse_literal
from campaigns.rlzoo.translate import HYPERPARAMS, translate_all, translate_entry


def _policy_kwargs_strings() -> list[str]:
    found = []
    for path in sorted(HYPERPARAMS.glob("*.yml")):
        for entry in yaml.safe_load(path.read_text()).values():
            if isinstance(entry.get("policy_kwargs"), str):
                found.append(entry["policy_kwargs"])
    return found


def test_the_reader_takes_every_policy_kwargs_rl_zoo_writes() -> None:
    texts = _policy_kwargs_strings()
    assert len(texts) > 40
    for text in texts:
        assert isinstance(parse_literal(text), dict), text
    multiline = next(t for t in texts if "pi=[256, 256]" in t and "log_std_init=-2," in t)
    assert parse_literal(multiline) == {
        "log_std_init": -2, "ortho_init": False, "activation_fn": Symbol("nn.ReLU"),
        "net_arch": {"pi": [256, 256], "vf": [256, 256]},
    }  # fmt: skip
    assert parse_literal("dict(optimizer_class=RMSpropTFLike, optimizer_kwargs=dict(eps=1e-5))") == {
        "optimizer_class": Symbol("RMSpropTFLike"), "optimizer_kwargs": {"eps": 1e-5},
    }  # fmt: skip
    assert parse_literal("{'norm_obs': False, 'norm_reward': True}") == {
        "norm_obs": False,
        "norm_reward": True,
    }


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('x')",
        "dict(activation_fn=__import__('torch').nn.ReLU)",
        "dict(f=lambda: 0)",
        "dict(net_arch=layers[0])",
        "open('/etc/passwd')",
        "nn.ReLU()",
        "dict(**kwargs)",
        "dict(net_arch=[64] * 2)",
        "dict(net_arch=[64, 64]",
    ],
)
def test_the_reader_refuses_anything_but_literals(text: str) -> None:
    with pytest.raises(LiteralRefusedError):
        parse_literal(text)


def test_a_ppo_entry_with_sub_envs_and_linear_schedules() -> None:
    found = translate_entry("ppo", "CartPole-v1", {
        "n_envs": 8, "n_timesteps": 1e5, "policy": "MlpPolicy", "n_steps": 32, "batch_size": 256,
        "gamma": 0.98, "learning_rate": "lin_0.001", "clip_range": "lin_0.2", "normalize": True,
    })  # fmt: skip
    assert found.refused == ()
    assert found.data is not None
    assert found.data["env"] == {"type": "gym_vec", "name": "CartPole-v1", "num_envs": 8}
    assert found.data["replay_buffer"] == {"type": "rollout", "n_steps": 32, "num_envs": 8}
    assert found.data["trainer"] == {"max_env_steps": 100_000, "max_opts": None, "opt_interval": 256,
                                     "warmup_period": 0, "eval_interval": None,
                                     "eval_interval_env_steps": 25_000}  # fmt: skip
    assert found.data["evaluator"] == {"n_episodes": 5}  # rl_zoo3's --eval-freq and --eval-episodes
    agent = found.data["agent"]
    assert (agent["lr"], agent["lr_schedule"], agent["schedule_env_steps"]) == (0.001, "linear", 100_000)
    assert (agent["clip_range"], agent["clip_schedule"]) == (0.2, "linear")
    assert (agent["batch_size"], agent["normalize_obs"], agent["normalize_reward"]) == (256, True, True)
    assert (agent["n_epochs"], agent["gae_lambda"], agent["hidden"]) == (10, 0.95, [64, 64])  # SB3's defaults
    assert found.data["step_processor"] == {"gamma": 0.98, "type": "simple"}


def test_a_record_window_holds_one_evaluation_at_most() -> None:
    # A2C's zoo file records every 500 opt steps; rollouts of 400 env steps evaluate every 62.5 of them.
    found = translate_entry("a2c", "MountainCarContinuous-v0", {
        "n_envs": 4, "n_steps": 100, "n_timesteps": 1e5, "policy": "MlpPolicy",
    })  # fmt: skip
    assert found.data is not None
    assert found.data["trainer"]["record_interval"] == 62
    assert "records every 62 opt steps (trainer.record_interval): one evaluation each" in found.notes
    for outcome in translate_all():  # every entry evaluated by env steps, as the zoo runs it
        if outcome.data is None or outcome.data["trainer"].get("eval_interval_env_steps") is None:
            continue
        trainer = zoo.merge(zoo.zoo_file(outcome.zoo_algo)["defaults"], outcome.data)["trainer"]
        between = max(1, trainer["eval_interval_env_steps"] // trainer["opt_interval"])
        assert trainer.get("record_interval", 100) <= between, outcome.name


def test_a_sac_entry_spreads_its_update_blocks_and_refuses_episodes_by_name() -> None:
    entry: dict[str, Any] = {
        "n_timesteps": 5e4, "policy": "MlpPolicy", "train_freq": 8, "gradient_steps": 16,
        "learning_starts": 1000, "learning_rate": 7.3e-4, "ent_coef": "auto_0.1",
        "policy_kwargs": "dict(net_arch=dict(pi=[64], qf=[400, 300]))",
    }  # fmt: skip
    found = translate_entry("sac", "Pendulum-v1", entry)
    assert found.data is not None
    assert found.data["trainer"] == {"max_env_steps": 50_000, "max_opts": None, "warmup_period": 1000,
                                     "opt_interval": 1, "eval_interval": None,
                                     "eval_interval_env_steps": 25_000}  # fmt: skip
    agent = found.data["agent"]
    assert agent["n_updates_per_opt"] == 2  # 16 updates every 8 env steps: 2 per env step
    assert agent["actor_lr"] == agent["critic_lr"] == agent["alpha_lr"] == 7.3e-4
    assert (agent["auto_alpha"], agent["init_alpha"]) == (True, 0.1)
    assert (agent["actor_hidden"], agent["critic_hidden"]) == ([64], [400, 300])

    refused = translate_entry("sac", "Pendulum-v1", {**entry, "train_freq": [1, "episode"]})
    assert refused.data is None
    assert [r.key for r in refused.refused] == ["train_freq"]


GSDE_ENTRY: dict[str, Any] = {  # RL Zoo's sac.yml MountainCarContinuous-v0, with a warm-up
    "n_timesteps": 5e4, "policy": "MlpPolicy", "batch_size": 512, "ent_coef": 0.1, "train_freq": 32,
    "gradient_steps": 32, "gamma": 0.9999, "tau": 0.01, "learning_starts": 1000, "use_sde": True,
    "policy_kwargs": "dict(log_std_init=-3.67, net_arch=[64, 64], use_expln=True)",
}  # fmt: skip


def test_a_gsde_entry_keeps_sb3s_blocks_and_its_noise_settings() -> None:
    entry = GSDE_ENTRY
    found = translate_entry("sac", "MountainCarContinuous-v0", entry)
    assert found.refused == ()
    assert found.data is not None
    # SB3 draws new noise weights at each block: kept whole, one opt step of 32 updates every 32 env steps.
    assert (found.data["trainer"]["opt_interval"], found.data["agent"]["n_updates_per_opt"]) == (32, 32)
    agent = found.data["agent"]
    assert (agent["gsde"], agent["sde_sample_freq"], agent["log_std_init"], agent["use_expln"]) == (
        True,
        None,  # SB3's -1: once per block
        -3.67,
        True,
    )
    assert (agent["auto_alpha"], agent["init_alpha"]) == (False, 0.1)
    assert agent["warmup_actions"] == "uniform"  # SB3 samples the action space before learning_starts

    tqc = translate_entry(
        "tqc", "BipedalWalker-v3", {**entry, "sde_sample_freq": 8, "use_sde_at_warmup": True}
    )
    assert tqc.data is not None
    assert (tqc.data["agent"]["gsde"], tqc.data["agent"]["sde_sample_freq"]) == (True, 8)
    assert "warmup_actions" not in tqc.data["agent"]  # SB3's gSDE acts in the warm-up, as the policy does
    assert any("with gSDE (use_sde_at_warmup), as SB3's" in n and "every 8 env steps" in n for n in tqc.notes)

    # rl_zoo3 evaluates every 25,000 env steps: 1,562 opt steps of 32 reach that, and evaluate at it.
    assert (found.data["trainer"]["eval_interval"], found.data["trainer"]["eval_interval_env_steps"]) == (
        None,
        25_000,
    )
    short = translate_entry("sac", "MountainCarContinuous-v0", {**entry, "n_timesteps": 2e4})
    assert short.data is not None  # 20,000 env steps: before rl_zoo3's first evaluation; once at the end
    assert short.data["trainer"]["eval_interval"] == 20_000 // 32 - 1_000 // 32
    assert any("once here, at the last opt step" in n for n in short.notes)

    plain = translate_entry("sac", "MountainCarContinuous-v0", {**entry, "use_sde": False})
    assert plain.data is not None
    assert (plain.data["trainer"]["opt_interval"], plain.data["agent"]["n_updates_per_opt"]) == (1, 1)
    assert plain.data["agent"]["gsde"] is False
    assert plain.data["agent"]["warmup_actions"] == "uniform"
    cold = translate_entry("sac", "MountainCarContinuous-v0", {**entry, "learning_starts": 0})
    assert cold.data is not None
    assert "warmup_actions" not in cold.data["agent"]  # no warm-up to act in

    bad = translate_entry("sac", "MountainCarContinuous-v0", {
        **entry, "sde_sample_freq": 0, "use_sde_at_warmup": "yes",
        "policy_kwargs": "dict(use_expln=1, clip_mean='2')",
    })  # fmt: skip
    assert sorted(r.key for r in bad.refused) == [
        "policy_kwargs.clip_mean", "policy_kwargs.use_expln", "sde_sample_freq", "use_sde_at_warmup",
    ]  # fmt: skip
    td3 = translate_entry("td3", "Pendulum-v1", {**entry, "use_sde": True})
    assert "use_sde" in [r.key for r in td3.refused]  # border_py's TD3 has no gSDE


def test_a_gsde_entry_holds_its_mean_as_sb3s_actor_does() -> None:
    found = translate_entry("sac", "MountainCarContinuous-v0", GSDE_ENTRY)
    assert found.data is not None
    assert found.data["agent"]["clip_mean"] == 2.0  # SB3's gSDE actor holds its mean in [-2, 2] by default
    plain = translate_entry("sac", "MountainCarContinuous-v0", {**GSDE_ENTRY, "use_sde": False})
    assert plain.data is not None
    assert "clip_mean" not in plain.data["agent"]  # SB3 reads it with use_sde only
    held = translate_entry("tqc", "MountainCarContinuous-v0", {
        **GSDE_ENTRY, "policy_kwargs": "dict(log_std_init=-3.67, net_arch=[64, 64], clip_mean=1.5)",
    })  # fmt: skip
    assert held.data is not None
    assert held.data["agent"]["clip_mean"] == 1.5
    zero = {**GSDE_ENTRY, "policy_kwargs": "dict(clip_mean=0.0)"}
    unheld = translate_entry("sac", "MountainCarContinuous-v0", zero)
    assert unheld.data is not None
    assert "clip_mean" not in unheld.data["agent"]  # SB3: 0 holds nothing


def test_a_dqn_entry_explores_over_a_fraction_of_its_budget_in_env_steps() -> None:
    found = translate_entry("dqn", "Acrobot-v1", {
        "n_timesteps": 1e5, "policy": "MlpPolicy", "exploration_fraction": 0.12,
        "exploration_final_eps": 0.1, "train_freq": 16, "gradient_steps": 8, "target_update_interval": 600,
        "policy_kwargs": "dict(net_arch=[256, 256])",
    })  # fmt: skip
    assert found.data is not None
    agent = found.data["agent"]
    assert agent["explorer"] == {"kind": "epsilon_greedy", "eps_start": 1.0, "eps_final": 0.1,
                                 "final_step": 12_000}  # fmt: skip
    # SB3's block kept whole: 8 updates every 16 env steps, the greedy policy held between blocks.
    assert (found.data["trainer"]["opt_interval"], agent["n_updates_per_opt"]) == (16, 8)
    assert agent["target_update_interval"] == 300  # 600 env steps of 8 updates per 16, in updates
    assert (agent["hidden"], agent["batch_size"], found.data["trainer"]["warmup_period"]) == (
        [256, 256],
        32,
        100,
    )


def test_a_qrdqn_entry_takes_sb3_contribs_adam_epsilon_of_its_batch() -> None:
    entry = {"n_timesteps": 1e5, "policy": "MlpPolicy", "train_freq": 4, "gradient_steps": 1}
    sized = translate_entry("qrdqn", "Acrobot-v1", {**entry, "batch_size": 128})
    assert sized.data is not None
    assert sized.data["agent"]["adam_eps"] == 0.01 / 128  # sb3-contrib: 0.01 / batch_size
    plain = translate_entry("qrdqn", "Acrobot-v1", entry)
    assert plain.data is not None
    assert plain.data["agent"]["adam_eps"] == 0.01 / 32  # at sb3-contrib's default batch
    dqn = translate_entry("dqn", "Acrobot-v1", {**entry, "batch_size": 128})
    assert dqn.data is not None
    assert "adam_eps" not in dqn.data["agent"]  # SB3's DQN keeps Adam's own, as border_py's does


def test_an_off_policy_lin_learning_rate_falls_over_the_opt_steps_of_its_budget() -> None:
    found = translate_entry("qrdqn", "LunarLander-v3", {
        "n_timesteps": 1e5, "policy": "MlpPolicy", "learning_rate": "lin_1.5e-3", "learning_starts": 1000,
        "train_freq": 4, "gradient_steps": 1,
    })  # fmt: skip
    assert found.refused == ()
    assert found.data is not None
    agent = found.data["agent"]
    # An opt step every 4 env steps after the first 1,000: 100,000 / 4 - 1,000 / 4 of them.
    assert (agent["lr"], agent["lr_schedule"], agent["schedule_opt_steps"]) == (1.5e-3, "linear", 24_750)

    td3 = translate_entry("td3", "Pendulum-v1", {
        "n_timesteps": 2e4, "policy": "MlpPolicy", "learning_rate": "lin_7e-4", "learning_starts": 1000,
        "train_freq": 2, "gradient_steps": 2,
    })  # fmt: skip
    assert td3.refused == ()
    assert td3.data is not None
    agent = td3.data["agent"]
    assert agent["actor_lr"] == agent["critic_lr"] == 7e-4
    assert (agent["lr_schedule"], agent["schedule_opt_steps"]) == ("linear", 19_000)  # one per env step


def test_no_key_is_dropped_silently() -> None:
    found = translate_entry("a2c", "CartPole-v1", {
        "n_timesteps": 1e5, "policy": "MlpPolicy", "frobnicate": 3, "frame_stack": 4,
        "policy_kwargs": "dict(activation_fn=nn.GELU, squash_output=True)",
    })  # fmt: skip
    assert found.data is None
    assert sorted(r.key for r in found.refused) == [
        "frame_stack", "frobnicate", "policy_kwargs.activation_fn", "policy_kwargs.squash_output",
    ]  # fmt: skip
    assert translate_entry("sac", "HalfCheetahBulletEnv-v0", {"use_sde": True}).skipped == (
        "PyBullet (pybullet_envs): not a Gymnasium env"
    )


def _section(report: str, title: str) -> str:
    return report.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _written(out: Path) -> dict[str, dict[str, Any]]:
    """Each written entry's experiment data as the zoo gives it, by name (``td3 Ant-v5 variant ddpg``)."""
    found = {}
    for path in sorted(out.glob("*.yaml")):
        algo = path.stem
        for env_id, entry in yaml.safe_load(path.read_text()).items():
            own = dict(entry)
            base = zoo.merge(zoo.merge(zoo.zoo_file(algo)["defaults"], {"env": {"name": env_id}}), own)
            found[f"{algo} {env_id}"] = zoo.merge(base, {"variants": None})
            for variant, over in own.get("variants", {}).items():
                found[f"{algo} {env_id} variant {variant}"] = zoo.merge(found[f"{algo} {env_id}"], over)
    return found


def test_the_script_translates_rl_zoos_files_and_reports_what_it_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: dict[str, str | None] = {}
    build = review_module.build_refusal

    def spy(merged: Any, source: str) -> str | None:
        built[source] = build(merged, source)
        return built[source]

    monkeypatch.setattr(review_module, "build_refusal", spy)
    assert rlzoo_translate.main(["--out", str(tmp_path)]) == 0
    report = (tmp_path / "REPORT.md").read_text()
    assert capsys.readouterr().out == report
    counts = {k: int(n) for k, n in re.findall(r"^- (translated and built|refused by border_py|refused|"
                                               r"skipped): (\d+)$", report, re.M)}  # fmt: skip

    written = _written(tmp_path)
    assert len(written) == counts["translated and built"] > 60
    assert all(built[name] is None for name in written)  # each written entry built as train builds it
    for name, data in written.items():
        codec.experiment_from_dict({k: v for k, v in data.items() if k != "variants"}, name)
    blocked = {name for name, refusal in built.items() if refusal is not None}
    assert len(blocked) == counts["refused by border_py"]
    assert not blocked & set(written)
    # Evaluated as rl_zoo3 does (every 25,000 env steps, or once where the budget is shorter): the entries
    # the zoo defaults' intervals left without an evaluation now build.
    assert blocked == set()
    assert {"ppo Pendulum-v1", "sac MountainCarContinuous-v0", "tqc BipedalWalker-v3"} <= set(written)

    outcomes = translate_all()
    refused = {o.name for o in outcomes if o.refused}
    listed = set(re.findall(r"^- `([^`]+)` \(rl_zoo3", _section(report, "Refused"), re.M))
    assert listed == refused
    assert len(refused) == counts["refused"]
    assert "use_sde" not in _section(report, "Refused")  # SAC's and TQC's gSDE is translated
    # The zoo's own entry differs in its evaluation alone (every 61 opt steps of 32 env steps, 10 episodes).
    differences = report.split("### `sac MountainCarContinuous-v0`")[1].split("### ")[0]
    assert "trainer.eval_interval" in differences
    assert counts["skipped"] == sum(1 for o in outcomes if o.skipped)
    assert sum(counts.values()) == len(outcomes)

    td3 = (tmp_path / "td3.yaml").read_text()
    assert "# variant ddpg: rl_zoo3 2.9.2 hyperparams/ddpg.yml Pendulum-v1" in td3
    assert "env Hopper-v4 -> Hopper-v5" in td3
    assert "| `agent.hidden` | `[64, 64]` | `[256, 256]` |" in _section(
        report, "Differences from border_py's zoo"
    )
