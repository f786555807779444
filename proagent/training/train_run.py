"""One `proagent train` run, after its flags were parsed: every check that can refuse the run comes
first (world, algorithm, layout, configs, output folder), so a refused run leaves no folder behind;
then the algorithm trains and the shipped agent(s) are reported.

Errors are one line on stderr with exit code 2; library code raises ValueError and this module
prints it (``proagent.training.cli`` holds the flags, ``run_config`` makes them configs).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proagent.training import run_config


def _fail(exc: Exception | str) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


def _say(line: str) -> None:
    print(line, flush=True)


def _out_dir(args: argparse.Namespace, world: str, layout: str, settings: Any) -> Path:
    """``--out`` or ``--ship``'s partner folder, else the newest interrupted run (``--resume``) or a
    fresh run folder; a ValueError when it holds a checkpoint that ``--overwrite`` does not allow to
    replace."""
    from proagent.training.algorithms.human_proxy import ProxySettings, proxy_dir
    from proagent.training.run_folder import default_out, interrupted_run, refuse_checkpoint_overwrite, ship_out

    out = ship_out(world, layout, args.ship or args.algo) if args.ship is not None else args.out
    if out is None and args.resume:
        out = interrupted_run(world, layout, args.algo)
        if out is None:
            raise ValueError(f"--resume: no interrupted {args.algo} run of {world} {layout} under runs/train; give --out")
    out = out or default_out(world, layout, args.algo)
    targets = [out]
    if args.algo == "human_proxy":
        targets += [proxy_dir(out, style) for style in (settings or ProxySettings()).styles]
    refuse_checkpoint_overwrite(targets, args.overwrite, args.resume)
    return out


def _prepare(args: argparse.Namespace) -> tuple[Any, Any, Path]:
    """(config, algorithm settings, output folder), or a ValueError naming what cannot run."""
    from proagent.paths import checkpoint_dir

    run_config.refuse_algorithm(args)
    if args.algo == "bc":
        config, settings = run_config.bc_config(args), None
    else:
        config = run_config.build_config(args) if args.algo == "sp" else run_config.build_algo_config(args)
        settings = run_config.build_algo_settings(args)
    if args.init_from is not None:
        args.init_from = checkpoint_dir(args.init_from)  # an Overcooked partner's old place resolves
    return config, settings, _out_dir(args, config.world, config.layout, settings)


def run_training(args: argparse.Namespace, say: Callable[[str], None] | None = None) -> int:
    """Train as the flags say; every progress line goes to ``say`` (default: stdout)."""
    from proagent.training import checkpoint
    from proagent.training.networks import encoder_name

    say = say or _say
    try:
        config, settings, out = _prepare(args)
    except ValueError as exc:  # unknown world, algorithm the world lacks, bad layout, config or --out
        return _fail(exc)
    if args.algo == "bc":
        return _run_bc(config, out, args.eval_episodes, say)
    say(
        f"training {args.algo} on {config.world} {config.layout}: {config.total_steps:,} steps, encoder "
        f"{encoder_name(config.network)}, device {checkpoint.device_description()} -> {out}"
    )
    try:
        manifests = _train(args, config, settings, out, say)
    except ValueError as exc:  # e.g. a run left to resume, --resume with other arguments, a bad --init-from
        return _fail(exc)
    for manifest in manifests:
        sp = manifest.self_play
        say(f"saved {manifest.algorithm} ({manifest.train_wall_time_s:.0f}s; self-play {sp.text(2)})")
    return 0


def _train(args: argparse.Namespace, config: Any, settings: Any, out: Path, say: Callable[[str], None]) -> list:
    if args.algo == "sp":
        from proagent.training.trainer import train

        result = train(
            config,
            out,
            args.algo,
            args.updates_per_call,
            args.eval_episodes,
            args.checkpoint_every,
            say,
            args.resume,
            args.keep_best,
            args.init_from,
        )
        return [result.manifest]
    from proagent.training.algorithms import TRAINERS
    from proagent.training.resume import ResumePolicy

    policy = ResumePolicy(resume=args.resume, every_s=args.checkpoint_every)
    result = TRAINERS[args.algo](config, out, say, settings, policy)
    return result if isinstance(result, list) else [result]


def _run_bc(config: Any, out: Path, eval_episodes: int, say: Callable[[str], None]) -> int:
    from proagent.training.bc import train_bc

    try:
        manifest, _ = train_bc(config, out, eval_episodes, log=say)
    except ValueError as exc:
        return _fail(exc)
    sp = manifest.self_play
    say(f"saved {out}  (val accuracy {manifest.bc['val_accuracy']:.3f}; self-play {sp.text()})")
    return 0
