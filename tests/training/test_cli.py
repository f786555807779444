"""`proagent train`: arguments become a validated PPOConfig; bad input fails fast with exit 2."""

from __future__ import annotations

import argparse

from proagent.training import cli


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli.register(sub)
    return parser.parse_args(["train", *argv])


def test_arguments_build_the_config():
    args = _parse("--layout", "forced_coordination", "--seed", "3", "--steps", "2e6", "--encoder", "cnn",
                  "--set", "ent_coef=0.02", "--set", "num_steps=64")  # fmt: skip
    cfg = cli.build_config(args)
    assert (cfg.layout, cfg.seed, cfg.total_steps, cfg.network.encoder) == ("forced_coordination", 3, 2_000_000, "cnn")
    assert cfg.shaping_horizon == 1_000_000 and cfg.ent_coef == 0.02 and cfg.num_steps == 64
    assert args.run is cli.run


def test_auto_encoder_is_cnn_on_gpu_only():
    import jax

    assert cli.resolve_encoder("auto") == ("cnn" if jax.default_backend() == "gpu" else "fast")
    assert cli.resolve_encoder("cnn") == "cnn"


def test_bad_layout_or_field_exits_2(capsys):
    assert cli.main(["--layout", "no_such_kitchen"]) == 2
    assert cli.main(["--layout", "cramped_room", "--set", "no_such_field=1"]) == 2
    assert "error" in capsys.readouterr().err
