"""`proagent train`: train a partner policy of any world with an RL spec, into a run folder.

    proagent train --layout cramped_room --algo sp|ippo|pbt|fcp|mep|cole|op|state_aug|human_proxy|hsp [--seed 0]
    [--steps 1e7] proagent train --domain cube --layout easy_2a --algo sp|ippo --steps 1507328
    proagent train --algo bc --layout cramped_room [--set epochs=100]   (recorded play; --steps unused)

``--domain`` picks the world (default overcooked); its RL spec (``Domain.capabilities.rl``) builds the env, the
network and its PPO recipe, and says which algorithms it supports (OP needs a symmetry transform,
state_aug start states, human_proxy style events, bc recorded play): any other is refused, with
exit code 2, before a folder is made. ``--steps`` is the whole env-step budget of the algorithm
(all its stages and population members); ``--set`` overrides PPO fields and ``--algo-set`` the
algorithm's own settings (e.g. ``pool_members=8``).

The run writes to ``--out``, by default a fresh ``runs/train/<timestamp>-<world>-<layout>-<algo>/``
(params.msgpack, manifest.json, history.jsonl); ``--ship [NAME]`` writes into the world's partners
folder instead (``partners/<world>/<layout>/<NAME or algo>/``), and a folder that already holds a
checkpoint is only replaced with ``--overwrite``.
The encoder defaults to ``auto``: the world's choice for the layout and backend (Overcooked: the
paper's CNN on a GPU, the fast 1x1 encoder on CPU). Also runnable as ``python -m proagent.training.cli``.

``--seeds N`` (sp, op; N=1 is the plain run) trains seeds ``--seed`` .. ``--seed+N-1`` of the same
per-seed recipe (``--steps``, ``--num-envs``, ``--shaping-horizon`` are per seed) side by side in one
vmapped program (`proagent.training.algorithms.side_by_side`); seed s lands in ``<NAME>`` (s = 0) or
``<NAME>_s<s>``, inside ``--out`` or as ``--ship``'s partners, every one checked against
``--overwrite`` before training starts; ``--keep-best``, ``--init-from`` and ``--warm-start`` are refused.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from proagent.bounded import NumberError, read_float, shown
from proagent.limits import MAX_EPISODES, MAX_SEED, MAX_SEEDS, MAX_TRAIN_STEPS
from proagent.request import RequestError
from proagent.training.request import ALGOS, TrainRequest
from proagent.training.run_config import build_algo_config, build_algo_settings, build_config, key_values

SIDE_BY_SIDE = ("sp", "op")  # the algorithms --seeds trains side by side (algorithms/side_by_side.py)


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_recipe_arguments(p)
    _add_output_arguments(p)
    _add_budget_arguments(p)
    _add_start_arguments(p)
    _add_sweep_arguments(p)


TRAINABLE = ("overcooked", "cube", "yokai")  # the built-in worlds with an RL spec (a test keeps this true)


def domain_help() -> str:
    """--domain's help: every registered world, those without an RL spec said so (read from the
    registry, which imports no world: `--help` stays quick)."""
    from proagent.domains import builtin_domain_names

    others = [w for w in builtin_domain_names() if w not in TRAINABLE]
    untrained = (
        f"; {', '.join(others)} {'has' if len(others) == 1 else 'have'} none, so cannot be trained" if others else ""
    )
    return f"the world: {', '.join(TRAINABLE)} (those with an RL spec{untrained}), or module:attribute"


def _add_recipe_arguments(p: argparse.ArgumentParser) -> None:
    """What is trained: world, algorithm, layout, seeds, steps and network."""
    p.add_argument("--domain", default="overcooked", help=domain_help())
    p.add_argument(
        "--algo",
        choices=ALGOS,
        default="sp",
        help="sp: self-play PPO (one network, every seat); ippo: independent PPO (a network per seat); pbt, fcp, "
        "mep, cole: population methods; bc: behaviour cloning of recorded play; human_proxy: style-rewarded PPO "
        "agents (partners human_proxy_<style>); hsp: a best response to those biased agents (HSP's second "
        "stage); op: Other-Play; state_aug: state-augmented self-play (V2 paper)",
    )
    p.add_argument(
        "--layout",
        default=None,
        help="layout or scenario name, or file (e.g. cramped_room, easy_2a); default: the world's own "
        "(`proagent layouts`), counter_circuit in Overcooked",
    )
    p.add_argument("--seed", type=_bounded(int, 0, MAX_SEED), default=0)
    p.add_argument(
        "--seeds",
        type=_bounded(int, 1, MAX_SEEDS),
        default=1,
        metavar="N",
        help=f"sp, op: train seeds --seed .. --seed+N-1 side by side in one vmapped program (1..{MAX_SEEDS}); "
        "--steps, --num-envs and --shaping-horizon are per seed, so each seed gets a lone run's updates, "
        "schedule and minibatches. Seed s ships to <NAME> (s = 0) or <NAME>_s<s> in --ship's partner folder or "
        "in --out; its initial params come from the program's key (--seed split), not a lone --seed s run's",
    )
    p.add_argument("--steps", type=STEPS, default=10_000_000, help="environment steps (e.g. 1e7)")
    p.add_argument(
        "--encoder",
        default="auto",
        help="auto: the world's choice for the layout and backend; else one of the world's encoders "
        "(overcooked: cnn, fast, pointwise; cube: mlp; yokai: fast, pointwise, cnn, pointer)",
    )
    p.add_argument(
        "--network-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a network config field, e.g. memory=128 or pointwise='[128,128,8]' (JSON for lists)",
    )


def _add_output_arguments(p: argparse.ArgumentParser) -> None:
    """Where the checkpoint goes."""
    p.add_argument(
        "--runs-dir",
        type=Path,
        default=None,
        help="where run folders go, as in play, eval and human (default: runs/train/ in the current folder); "
        "a run's folder is <time>-<world>-<layout>-<algo>/ in it",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="the run folder itself, instead of a new one in --runs-dir"
    )
    p.add_argument(
        "--ship",
        nargs="?",
        const="",
        default=None,
        metavar="NAME",
        help="write the checkpoint where partners are looked up, partners/<world>/<layout>/<NAME or the algo>/ "
        "(with --overwrite if one is there)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace the checkpoint --out or --ship holds")


def _add_budget_arguments(p: argparse.ArgumentParser) -> None:
    """How the steps are spent, scored and checkpointed."""
    p.add_argument(
        "--num-envs", type=_bounded(int, 1, 65_536), default=None, help="parallel environments (default: the world's)"
    )
    p.add_argument(
        "--shaping-horizon",
        type=_bounded(float, 0, MAX_TRAIN_STEPS),
        default=None,
        help="env steps to anneal shaping to 0 (default steps/2)",
    )
    p.add_argument(
        "--updates-per-call",
        type=_bounded(int, 1, 100_000),
        default=10,
        help="PPO updates per jitted call (progress granularity)",
    )
    p.add_argument(
        "--eval-episodes", type=_bounded(int, 0, MAX_EPISODES), default=100, help="self-play episodes scored at the end"
    )
    p.add_argument(
        "--checkpoint-every",
        type=_bounded(float, 0, 10**9),
        default=120.0,
        help="seconds between intermediate checkpoints",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run in --out (default: the newest one of this world, layout and algo) "
        "from its last intermediate checkpoint (same arguments)",
    )


def _add_start_arguments(p: argparse.ArgumentParser) -> None:
    """Where training starts and which settings it overrides."""
    p.add_argument(
        "--keep-best",
        type=int,
        default=0,
        metavar="CALLS",
        help="sp: keep the params of the best window of CALLS calls (sparse training score) and ship them if they "
        "evaluate higher than the final ones; the manifest records both (0: off)",
    )
    p.add_argument(
        "--init-from",
        type=Path,
        default=None,
        metavar="DIR",
        help="sp: fine-tune, starting from the params of checkpoint folder DIR (same layout, network and dynamics; "
        "a fresh optimizer and schedule); the manifest records DIR, its steps and its sha256",
    )
    p.add_argument(
        "--warm-start",
        choices=("none", "sp"),
        default="none",
        help="population methods: start the shipped agent(s) from partners/<world>/<layout>/sp (CPU-budget shortcut)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a PPOConfig field, e.g. ent_coef=0.01"
    )
    p.add_argument(
        "--algo-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="population methods: set one of the algorithm's own settings, e.g. pool_members=8 (fcp), "
        "population=8 (mep, pbt), generations=10 (cole), styles='[\"deliverer\"]' (human_proxy; JSON for lists), "
        "group=colour or plain_episodes=0 (op)",
    )


def _add_sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sweep",
        type=Path,
        default=None,
        metavar="FILE",
        help="train every run of a sweep file (methods x layouts x seeds x overrides, TOML) into its output root, "
        "then print a summary; with --resume, finished runs are skipped and killed ones resume",
    )
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="--sweep: local trains the runs one after another here; ray runs one Ray task per run",
    )
    p.add_argument(
        "--ray-address", default=None, metavar="ADDR", help="--executor ray: a running head (host:port or auto)"
    )


def _bounded(kind: type, low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite ``kind`` in ``[low, high]`` (``1e7`` is read as a number of steps),
    ASCII digits only (`proagent.bounded`)."""

    def parse(text: str) -> float:
        try:
            value = read_float(text, "value", low, high)
        except NumberError:
            value = math.nan
        if math.isnan(value) or (kind is int and value != int(value)):
            raise argparse.ArgumentTypeError(
                f"must be a {'whole ' if kind is int else ''}number from {low:g} to {high:g}, got {shown(text)}"
            )
        return kind(value)

    parse.__name__ = kind.__name__
    return parse


STEPS = _bounded(float, 1, MAX_TRAIN_STEPS)


def refuse_flags(request: TrainRequest) -> str | None:
    """The first flag combination that cannot run, as one line; None if all can."""
    if request.sweep is not None:
        return refuse_with_sweep(request)
    if request.executor != "local" or request.ray_address is not None:
        return "--executor and --ray-address are for --sweep; a single run trains in this process"
    if request.resume and request.algo == "bc":
        return "--resume: bc trains in seconds and keeps no resume state; run it again"
    if request.keep_best and request.algo != "sp":
        return f"--keep-best is for sp runs; {request.algo} ships its own final agent"
    if request.init_from is not None and request.algo != "sp":
        return f"--init-from is for sp runs; {request.algo} starts from SP with --warm-start sp"
    if request.ship is not None and (request.out is not None or request.runs_dir is not None):
        flag = "--out" if request.out is not None else "--runs-dir"
        return f"--ship writes to partners/<world>/<layout>/<name>/ and {flag} names another folder: give one of them"
    if request.out is not None and request.runs_dir is not None:
        return "--out names the run folder itself and --runs-dir where a new one goes: give one of them"
    if request.ship and not _is_folder_name(request.ship):
        return f"--ship {request.ship!r}: a partner name is letters, digits, '_', '-' and '.' (e.g. sp_s3)"
    if request.keep_best < 0:
        return f"--keep-best must be 0 (off) or a number of calls, got {request.keep_best}"
    return refuse_seeds(request) if request.seeds > 1 else None


def refuse_seeds(request: TrainRequest) -> str | None:
    """What ``--seeds N`` (N > 1, one program for all seeds) cannot run with, as one line."""
    if request.algo not in SIDE_BY_SIDE:
        return f"--seeds trains {' or '.join(SIDE_BY_SIDE)} seeds side by side; {request.algo} trains one seed a run"
    if request.keep_best:
        return "--keep-best keeps one run's best window; with --seeds each seed ships its final params"
    if request.init_from is not None:
        return "--init-from fine-tunes one checkpoint; it cannot be combined with --seeds"
    if request.warm_start != "none":
        return "--warm-start is for population methods; --seeds starts every seed from the program's key"
    if request.eval_episodes < 1:
        return "--seeds scores every seed in self-play: give --eval-episodes 1 or more"
    if request.seed + request.seeds - 1 > MAX_SEED:
        return f"--seed {request.seed} --seeds {request.seeds}: the last seed would pass {MAX_SEED}"
    return None


SWEEP_FLAGS = frozenset({"sweep", "executor", "ray_address", "resume"})  # what a sweep run takes from the command line


def refuse_with_sweep(request: TrainRequest) -> str | None:
    """What ``--sweep`` cannot run with: any run setting given on the command line, since the sweep
    file names every run's layout, folder and settings (one given here would be silently ignored)."""
    defaults = TrainRequest().model_dump()
    given = [d for d, value in request.model_dump().items() if d not in SWEEP_FLAGS and value != defaults[d]]
    if given:
        flags = ", ".join("--" + d.replace("_", "-") for d in given)
        return f"--sweep takes every run's layout, folder and settings from its file; drop {flags}"
    return None


def _is_folder_name(name: str) -> bool:
    """Whether ``name`` is one folder name a partner can have (no path, nothing hidden)."""
    return name[:1].isalnum() and all(c.isalnum() or c in "_-." for c in name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="proagent train", description=__doc__.splitlines()[0])
    add_arguments(parser)
    try:
        request = TrainRequest.from_args(parser.parse_args(argv))
    except RequestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run(request)


def run(request: TrainRequest, say: Callable[[str], None] | None = None) -> int:
    """Refuse what cannot run, else train (a run, or a sweep's runs); progress lines go to ``say``
    (default: stdout)."""
    from proagent.training.train_run import run_training

    refused = refuse_flags(request)
    if refused is not None:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    if request.sweep is not None:
        return _run_sweep(request, say or _say)
    if request.layout is None:
        from proagent.domains import get_domain

        try:
            layout = get_domain(request.domain).default_layout()
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        request = request.model_copy(update={"layout": layout})  # recorded as if given
    return run_training(request, say)


def _run_sweep(request: TrainRequest, say: Callable[[str], None]) -> int:
    from proagent.cluster import ClusterError
    from proagent.training.sweep_run import run_sweep

    try:
        return run_sweep(
            request.sweep, request.executor, request.ray_address, request.resume, run_argv, argv_refusal, say
        )
    except (ValueError, ClusterError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _say(line: str) -> None:
    print(line, flush=True)


class _RaisingParser(argparse.ArgumentParser):
    """The flags' parser for argument lists a program built (a sweep's runs): an error is a
    ValueError of one line, not argparse's usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def parse_argv(argv: list[str]) -> TrainRequest:
    """The request of an argument list; a ValueError (one line) for a bad one."""
    parser = _RaisingParser(prog="proagent train")
    add_arguments(parser)
    return TrainRequest.from_args(parser.parse_args(argv))


def run_argv(argv: list[str], say: Callable[[str], None]) -> int:
    """`proagent train` on an argument list (one run of a sweep): its exit code."""
    return run(parse_argv(argv), say)


def argv_refusal(argv: list[str]) -> str | None:
    """Why `proagent train` would refuse ``argv``, as one line, without writing anything."""
    from proagent.training.train_run import refusal

    try:
        request = parse_argv(argv)
    except ValueError as exc:
        return str(exc)
    return refuse_flags(request) or refusal(request)


__all__ = ["ALGOS", "add_arguments", "build_algo_config", "build_algo_settings", "build_config", "key_values", "main"]


if __name__ == "__main__":
    raise SystemExit(main())
