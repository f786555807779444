"""`proagent train`: arguments become a validated PPOConfig; bad input fails fast with exit 2."""

from __future__ import annotations

import pytest

from proagent.cli import build_parser
from proagent.training import cli
from proagent.training.request import TrainRequest


def _parse(*argv: str) -> TrainRequest:
    """The request `proagent train` makes of these flags."""
    return TrainRequest.from_args(build_parser().parse_args(["train", *argv]))


def test_arguments_build_the_config():
    args = _parse("--layout", "forced_coordination", "--seed", "3", "--steps", "2e6", "--encoder", "cnn",
                  "--set", "ent_coef=0.02", "--set", "num_steps=64")  # fmt: skip
    cfg = cli.build_config(args)
    assert (cfg.layout, cfg.seed, cfg.total_steps, cfg.network.encoder) == ("forced_coordination", 3, 2_000_000, "cnn")
    assert cfg.shaping_horizon == 1_000_000 and cfg.ent_coef == 0.02 and cfg.num_steps == 64


def test_auto_encoder_is_cnn_on_gpu_only():
    from proagent.domains.overcooked.rl_spec import OVERCOOKED_RL

    assert OVERCOOKED_RL.network("auto", "cramped_room", gpu=True).encoder == "cnn"
    assert OVERCOOKED_RL.network("auto", "cramped_room", gpu=False).encoder == "fast"
    assert OVERCOOKED_RL.network("cnn", "cramped_room", gpu=False).encoder == "cnn"
    with pytest.raises(ValueError, match="no encoder 'mlp'"):
        OVERCOOKED_RL.network("mlp", "cramped_room", gpu=False)


def test_bad_layout_or_field_exits_2(capsys):
    assert cli.main(["--layout", "no_such_kitchen"]) == 2
    assert cli.main(["--layout", "cramped_room", "--set", "no_such_field=1"]) == 2
    assert "error" in capsys.readouterr().err


def test_population_arguments_build_the_algo_config():
    args = _parse("--algo", "cole", "--layout", "random3", "--steps", "1.2e6", "--warm-start", "sp",
                  "--num-envs", "16", "--set", "ent_coef=0.02", "--set", "num_minibatches=8")  # fmt: skip
    algo = cli.build_algo_config(args)
    assert (algo.layout, algo.total_steps, algo.warm_start) == ("counter_circuit", 1_200_000, "sp")
    assert algo.ppo == {"num_envs": 16, "ent_coef": 0.02, "num_minibatches": 8}  # typed, as manifests store them
    assert algo.stage_config(1000).ent_coef == 0.02 and algo.stage_config(1000).num_envs == 16


def test_population_bad_override_exits_2(capsys):
    assert cli.main(["--algo", "mep", "--layout", "cramped_room", "--set", "no_such_field=1"]) == 2
    assert "error" in capsys.readouterr().err


def test_algo_set_builds_the_algorithm_settings():
    from proagent.training.algorithms.fcp import FCPSettings
    from proagent.training.algorithms.human_proxy import ProxySettings

    args = _parse("--algo", "fcp", "--layout", "cramped_room", "--algo-set", "pool_members=8",
                  "--algo-set", "include_shipped_sp=false")  # fmt: skip
    assert cli.build_algo_settings(args) == FCPSettings(pool_members=8, include_shipped_sp=False)
    proxy = _parse("--algo", "human_proxy", "--layout", "cramped_room", "--algo-set", 'styles=["deliverer"]')
    assert cli.build_algo_settings(proxy) == ProxySettings(styles=("deliverer",))
    assert cli.build_algo_settings(_parse("--algo", "mep", "--layout", "cramped_room")) is None


def test_bad_algo_set_exits_2_naming_the_setting(capsys):
    assert cli.main(["--algo", "fcp", "--layout", "cramped_room", "--algo-set", "pool_mmbers=3"]) == 2
    err = capsys.readouterr().err
    assert "pool_mmbers" in err and "settings: pool_members" in err
    assert cli.main(["--algo", "mep", "--layout", "cramped_room", "--algo-set", "population=1"]) == 2
    assert "population" in capsys.readouterr().err
    assert cli.main(["--algo", "sp", "--layout", "cramped_room", "--algo-set", "population=4"]) == 2
    assert "sp has no algorithm settings" in capsys.readouterr().err
    assert cli.main(["--algo", "cole", "--layout", "cramped_room", "--algo-set", "generations"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


@pytest.mark.slow  # ~10 s: the slow CI step runs it
def test_sp_command_trains_self_play_end_to_end(tiny_run, tmp_path):
    """``proagent train --algo sp`` keeps its flags and writes the checkpoint the trainer writes for
    the same config (tiny_run): same parameters, same manifest config, no resume state left."""
    from proagent.training import checkpoint
    from tests.support.xla import full_xla_optimisation

    out = tmp_path / "sp"
    tiny = ["--steps", "256", "--num-envs", "4", "--encoder", "fast", "--shaping-horizon", "256"]
    ppo = ["--set", "num_steps=32", "--set", "update_epochs=1", "--set", "num_minibatches=2"]
    run = ["--updates-per-call", "1", "--eval-episodes", "10", "--out", str(out)]
    with full_xla_optimisation():  # the build tiny_run's parameters came from
        assert cli.main(["--algo", "sp", "--layout", "cramped_room", *tiny, *ppo, *run]) == 0
    _, manifest = checkpoint.load(out)
    result, _ = tiny_run
    assert manifest.algorithm == "sp" and manifest.train_config == result.manifest.train_config
    assert manifest.params_sha256 == result.manifest.params_sha256
    assert (out / "history.jsonl").is_file() and not (out / "resume").exists()


def test_a_partial_view_layout_gets_the_recurrent_v2_network():
    import jax

    from proagent.training.networks import V2_CPU_NETWORK, V2_PAPER_NETWORK

    v2 = cli.build_config(_parse("--layout", "demo_cook_simple")).network
    assert v2 == (V2_PAPER_NETWORK if jax.default_backend() == "gpu" else V2_CPU_NETWORK) and v2.recurrent
    classic = cli.build_config(_parse("--layout", "cramped_room")).network
    assert not classic.recurrent
    tuned = cli.build_config(_parse("--layout", "demo_cook_simple", "--network-set", "memory=32",
                                    "--network-set", "pointwise=[16,4]")).network  # fmt: skip
    assert (tuned.memory, tuned.pointwise, tuned.encoder) == (32, (16, 4), "pointwise")


def test_bad_network_field_exits_2(capsys):
    assert cli.main(["--layout", "demo_cook_simple", "--network-set", "memory=-1"]) == 2
    assert cli.main(["--layout", "demo_cook_simple", "--network-set", "no_such_field=1"]) == 2
    assert "--network-set" in capsys.readouterr().err


def test_train_help_names_every_world_and_which_can_be_trained(capsys):
    from proagent.cli import main
    from proagent.domains import builtin_domain_names, get_domain
    from proagent.training.cli import TRAINABLE

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert all(world in said for world in builtin_domain_names())
    assert set(TRAINABLE) == {w for w in builtin_domain_names() if get_domain(w).capabilities.rl is not None}
    assert "macrafter has none, so cannot be trained" in said


def test_rounding_steps_up_is_said_with_its_unit():
    from proagent.training.config import PPOConfig

    config = PPOConfig(layout="cramped_room", total_steps=1000, num_envs=16, num_steps=128)  # 2,048 env steps an update
    assert config.played_steps(10) == 20_480
    note = config.rounding_note(10)
    assert note == ("--steps 1,000 rounded up to 20,480: training runs whole calls of 10 update(s) x 16 envs x 128 steps "
                    "(20,480 env steps a call)")  # fmt: skip
    assert PPOConfig(layout="cramped_room", total_steps=20_480, num_envs=16, num_steps=128).rounding_note(10) is None
