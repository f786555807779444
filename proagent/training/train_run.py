"""One `proagent train` run, after its flags were parsed: every check that can refuse the run comes
first (world, algorithm, layout, configs, output folder), so a refused run leaves no folder behind;
then the algorithm trains and the shipped agent(s) are reported.

Errors are one line on stderr with exit code 2; library code raises ValueError and this module
prints it (``proagent.training.cli`` holds the flags, ``run_config`` makes them configs).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proagent.training import run_config
from proagent.training.request import TrainRequest


def _fail(exc: Exception | str) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 2


def _say(line: str) -> None:
    print(line, flush=True)


def _out_dir(request: TrainRequest, world: str, layout: str, settings: Any) -> Path:
    """``--out`` or ``--ship``'s partner folder, else the newest interrupted run (``--resume``) or a
    fresh run folder; a ValueError when it holds a checkpoint that ``--overwrite`` does not allow to
    replace."""
    from proagent.training.algorithms.human_proxy import ProxySettings, proxy_dir
    from proagent.training.run_folder import default_out, interrupted_run, refuse_checkpoint_overwrite, ship_out

    out = request.out
    if request.ship is not None:  # --seeds N: the first seed's partner folder
        out = (
            _members(request, world, layout, None)[0]
            if request.seeds > 1
            else ship_out(world, layout, request.ship or request.algo)
        )
    run = _run_label(request)
    if out is None and request.resume:
        out = interrupted_run(world, layout, run, request.runs_dir)
        if out is None:
            raise ValueError(
                f"--resume: no interrupted {run} run of {world} {layout} under {request.runs_dir or 'runs/train'}; "
                "give --out"
            )
    out = out or default_out(world, layout, run, request.runs_dir)
    targets = _members(request, world, layout, out) if request.seeds > 1 else [out]
    if request.algo == "human_proxy":
        targets += [proxy_dir(out, style) for style in (settings or ProxySettings()).styles]
    refuse_checkpoint_overwrite(targets, request.overwrite, request.resume)
    return out


def _run_label(request: TrainRequest) -> str:
    """The algorithm as a run folder's name carries it: ``sp``, or ``sp-3seeds`` for ``--seeds 3``, so
    ``--resume`` never takes a one-seed run for a side-by-side one, nor the other way round."""
    return request.algo if request.seeds == 1 else f"{request.algo}-{request.seeds}seeds"


def _members(request: TrainRequest, world: str, layout: str, out: Path | None) -> list[Path]:
    """Where each seed of a ``--seeds`` run lands: ``--ship``'s partner folders, else folders in
    ``out`` (the run's own folder, which keeps the resume state; with ``--ship``, the first seed's)."""
    from proagent.training.algorithms.side_by_side import member_name
    from proagent.training.run_folder import ship_out

    names = [
        member_name(request.ship or request.algo, seed) for seed in range(request.seed, request.seed + request.seeds)
    ]
    if request.ship is not None:
        return [ship_out(world, layout, name) for name in names]
    assert out is not None
    return [out / name for name in names]


def _prepare(request: TrainRequest) -> tuple[TrainRequest, Any, Any, Path]:
    """(the request as it trains, config, algorithm settings, output folder), or a ValueError naming
    what cannot run. The request's ``init_from`` is resolved (an Overcooked partner's old place)."""
    from proagent.paths import checkpoint_dir

    run_config.refuse_algorithm(request)
    if request.algo == "bc":
        config, settings = run_config.bc_config(request), None
    else:
        one_seed_sp = request.algo == "sp" and request.seeds == 1  # trainer.py's loop; --seeds N: side_by_side.py's
        config = run_config.build_config(request) if one_seed_sp else run_config.build_algo_config(request)
        settings = run_config.build_algo_settings(request)
    if request.init_from is not None:
        request = request.model_copy(update={"init_from": checkpoint_dir(request.init_from)})
    return request, config, settings, _out_dir(request, config.world, config.layout, settings)


def _played(config: Any, updates_per_call: int) -> tuple[int, str | None]:
    """The env steps one PPO program plays and the note when ``--steps`` was rounded up; a population
    algorithm's budget is split into stages that each round for themselves, so its total is shown as given."""
    from proagent.training.config import PPOConfig

    if isinstance(config, PPOConfig):
        return config.played_steps(updates_per_call), config.rounding_note(updates_per_call)
    return int(config.total_steps), None


def refusal(request: TrainRequest) -> str | None:
    """Why this run would be refused before training (world, algorithm, layout, configs, folder),
    as one line; None when it would train. Writes nothing: a sweep checks every run this way first."""
    from pydantic import ValidationError

    try:
        _prepare(request)
    except ValidationError as exc:  # a config built from --set/--algo-set/--network-set: its first bad field
        first = exc.errors()[0]
        return f"{exc.title} {'.'.join(str(part) for part in first['loc'])}: {first['msg']}"
    except ValueError as exc:
        return str(exc)
    return None


def run_training(request: TrainRequest, say: Callable[[str], None] | None = None) -> int:
    """Train as the flags say; every progress line goes to ``say`` (default: stdout)."""
    from proagent.training import checkpoint
    from proagent.training.networks import encoder_name

    say = say or _say
    try:
        request, config, settings, out = _prepare(request)
    except ValueError as exc:  # unknown world, algorithm the world lacks, bad layout, config or --out
        return _fail(exc)
    if request.algo == "bc":
        return _run_bc(config, out, request.eval_episodes, say)
    seeds = (
        f" x {request.seeds} seeds ({request.seed}..{request.seed + request.seeds - 1})" if request.seeds > 1 else ""
    )
    per_seed = " per seed" if request.seeds > 1 else ""
    played, note = _played(config, request.updates_per_call)
    if note is not None:
        say(note)
    say(
        f"training {request.algo}{seeds} on {config.world} {config.layout}: "
        f"{played:,} steps{per_seed}, "
        f"encoder {encoder_name(config.network)}, device {checkpoint.device_description()} -> {out}"
    )
    try:
        manifests = _train(request, config, settings, out, say)
    except ValueError as exc:  # e.g. a run left to resume, --resume with other arguments, a bad --init-from
        return _fail(exc)
    for manifest in manifests:
        sp = manifest.self_play
        seed = f" seed {manifest.seed}" if request.seeds > 1 else ""
        say(f"saved {manifest.algorithm}{seed} ({manifest.train_wall_time_s:.0f}s; self-play {sp.text(2)})")
    return 0


def _train(request: TrainRequest, config: Any, settings: Any, out: Path, say: Callable[[str], None]) -> list:
    from proagent.training.resume import ResumePolicy

    policy = ResumePolicy(resume=request.resume, every_s=request.checkpoint_every)
    if request.seeds > 1:
        from proagent.training.algorithms.side_by_side import train_side_by_side

        members = _members(request, config.world, config.layout, out)
        return train_side_by_side(config, request.algo, members, out, say, settings, policy)
    if request.algo == "sp":
        from proagent.training.trainer import train

        result = train(
            config,
            out,
            request.algo,
            request.updates_per_call,
            request.eval_episodes,
            request.checkpoint_every,
            say,
            request.resume,
            request.keep_best,
            request.init_from,
        )
        return [result.manifest]
    from proagent.training.algorithms import TRAINERS

    result = TRAINERS[request.algo](config, out, say, settings, policy)
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
