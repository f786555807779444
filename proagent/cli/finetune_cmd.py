"""`proagent finetune RUN... --out DIR`: a LoRA adapter for the embedded model, taught by the
decisions traced in run folders (`proagent.finetune`)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.bounded import NumberError, read_float
from proagent.cli.arg_types import bounded_int, positive_float, positive_int, writable_folder
from proagent.cli.finetune_eval import add_eval_flags, flags_without_eval

if TYPE_CHECKING:
    from proagent.eval.config import EvalConfig
    from proagent.eval.world import World
    from proagent.finetune.dataset import DataSelection, PlayedEpisode, SupervisedPair
    from proagent.finetune.train import FinetuneManifest

TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


def _targets(text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    unknown = [t for t in names if t not in TARGETS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma list of {', '.join(TARGETS)}")
    return names


def _score(text: str) -> float:
    """An episode score threshold: any finite number (scores may be negative in some worlds)."""
    try:
        return read_float(text, "value", -1e12, 1e12)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("finetune", help="train a LoRA adapter for the embedded model on traced decisions")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run folders (play/eval) whose decisions teach")
    p.add_argument(
        "--out", required=True, type=writable_folder, help="folder for adapter.gguf, manifest.json, checkpoints"
    )
    p.add_argument("--resume", action="store_true", help="continue the checkpoint in --out (same data and settings)")
    p.add_argument("--steps", type=positive_int, default=200, help="optimizer steps (default 200)")
    p.add_argument("--batch-size", type=bounded_int(1, 256), default=4, help="examples a step (default 4)")
    p.add_argument("--rank", type=bounded_int(1, 256), default=8, help="LoRA rank (default 8)")
    p.add_argument("--alpha", type=positive_float, default=16.0, help="LoRA alpha; the delta is scaled alpha/rank")
    p.add_argument("--lr", type=positive_float, default=2e-4, help="AdamW learning rate (default 2e-4)")
    p.add_argument("--targets", type=_targets, default=TARGETS, help="projections to adapt (default all seven)")
    p.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="initialisation and batch order")
    p.add_argument("--min-score", type=_score, default=None, help="keep episodes that scored at least this")
    p.add_argument("--include-rejected", action="store_true", help="also learn answers the agent did not act on")
    p.add_argument("--keep-duplicates", action="store_true", help="do not drop repeated (prompt, answer) pairs")
    p.add_argument("--max-per-world", type=positive_int, default=None, help="at most N pairs from each world")
    p.add_argument(
        "--balance",
        choices=("none", "worlds"),
        default="none",
        help="worlds: draw the same number of pairs from every world (the smallest world's, or --max-per-world), "
        "at random with --seed; none (default): keep each world's first --max-per-world",
    )
    p.add_argument("--max-tokens", type=bounded_int(2), default=2048, help="drop pairs longer than N tokens")
    p.add_argument("--model", type=Path, default=None, help="base GGUF (default: the bundled SmolLM2-135M)")
    add_eval_flags(p)
    p.set_defaults(run=run)


def _error(message: str) -> int:
    print(f"proagent finetune: error: {message}", file=sys.stderr)
    return 2


def _base_model(args: argparse.Namespace) -> Path:
    """The GGUF to train on: ``--model``, else the bundled one (ValueError: one line)."""
    from proagent.llm.embedded import find_bundled_gguf
    from proagent.llm.types import LLMConfigError

    try:
        base = args.model if args.model is not None else find_bundled_gguf()
    except LLMConfigError as exc:
        raise ValueError(str(exc)) from None
    if not base.is_file():
        raise ValueError(f"--model {base} is not a file")
    return base


def run(args: argparse.Namespace) -> int:
    """Read and filter the runs, check the base model and the `--eval` request, all before ``--out``
    is made; then train, and play the student if asked."""
    from proagent.finetune.dataset import (
        DataFilter,
        DataSelection,
        RunFolderError,
        played_episodes,
        read_run_folder,
        select_pairs,
        world_counts,
    )

    data_filter = DataFilter(
        min_score=args.min_score,
        accepted_only=not args.include_rejected,
        dedup=not args.keep_duplicates,
        max_per_world=args.max_per_world,
        max_tokens=args.max_tokens,
        balance=args.balance,
        seed=args.seed,
    )
    if flags_without_eval(args):
        return _error(f"{', '.join(flags_without_eval(args))} only apply with --eval; add --eval or drop them")
    if args.out.exists() and any(args.out.iterdir()) and not args.resume:
        return _error(f"--out {args.out} is not empty; give a new folder, or --resume to continue its checkpoint")
    try:
        pairs = [pair for folder in args.runs for pair in read_run_folder(folder)]
        played = [episode for folder in args.runs for episode in played_episodes(folder)] if args.eval else []
        base = _base_model(args)
    except (RunFolderError, ValueError) as exc:
        return _error(str(exc))
    kept = select_pairs(pairs, data_filter)
    if not kept:
        return _error(f"none of the {len(pairs)} traced answers passes the filters; loosen --min-score or the others")
    selection = DataSelection(
        runs=[str(folder) for folder in args.runs],
        data_filter=data_filter,
        pairs_read=len(pairs),
        worlds_read=world_counts(pairs),
        worlds_kept=world_counts(kept),
    )
    evaluation = _eval_request(args, kept, played, base) if args.eval else None
    if isinstance(evaluation, str):
        return _error(evaluation)
    return _train(args, kept, selection, base, evaluation)


def _eval_request(
    args: argparse.Namespace, kept: list[SupervisedPair], played: list[PlayedEpisode], base: Path
) -> tuple[EvalConfig, World] | str:
    """The checked `--eval` request and the world it plays in, or the one-line problem."""
    from proagent.cli.finetune_eval import check_request, eval_request
    from proagent.eval.config import ConfigError
    from proagent.eval.world import World

    world = World()
    llm = "embedded" if args.model is None else f"embedded:{base.absolute()}"
    try:
        request = eval_request(args, kept, played, llm)
        check_request(request, world)
    except ConfigError as exc:
        return str(exc)
    return request, world


def _train(
    args: argparse.Namespace,
    kept: list[SupervisedPair],
    selection: DataSelection,
    base: Path,
    evaluation: tuple[EvalConfig, World] | None,
) -> int:
    from proagent.finetune.chat_tokens import ChatTokenizer
    from proagent.finetune.dataset import to_examples
    from proagent.finetune.lora import LoraConfig
    from proagent.finetune.train import TrainConfig, finetune

    examples = to_examples(kept, ChatTokenizer(base), args.max_tokens)
    if not examples:
        return _error(f"every kept answer is longer than --max-tokens {args.max_tokens}")
    lora = LoraConfig(rank=args.rank, alpha=args.alpha, targets=args.targets, learning_rate=args.lr, seed=args.seed)
    config = TrainConfig(lora=lora, steps=args.steps, batch_size=args.batch_size)
    worlds = sorted(selection.worlds_kept)
    folders = ", ".join(p.name for p in args.runs)
    source = f"{len(args.runs)} run folder(s): {folders}; filter {selection.data_filter!r}; worlds {worlds}"
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("proagent.finetune")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        print(
            f"{len(examples)} examples from {len(kept)} kept answers ({len(worlds)} world(s): "
            f"{_counts(selection.worlds_kept)}); training {args.steps} steps"
        )
        manifest = finetune(examples, base, args.out, config, source=source, resume=args.resume, selection=selection)
    except ValueError as exc:
        return _error(str(exc))
    finally:
        log.removeHandler(handler)
    print(
        f"adapter: {args.out / manifest.adapter_file} (sha256 {manifest.adapter_sha256[:12]}); "
        f"final loss {manifest.losses[-1].loss:.4f}; {manifest.examples_per_s:.2f} examples/s"
    )
    if evaluation is None:
        return 0
    return _evaluate(args, *evaluation, manifest)


def _counts(per_world: dict[str, int]) -> str:
    return ", ".join(f"{world} {n}" for world, n in per_world.items())


def _evaluate(args: argparse.Namespace, request: EvalConfig, world: World, manifest: FinetuneManifest) -> int:
    """Play the student and the raw model, record the summary in the manifest, print it."""
    from proagent.cli.finetune_eval import play_student, with_adapter
    from proagent.finetune.scores import RAW, STUDENT
    from proagent.finetune.train import record_evaluation

    config = with_adapter(request, args.out / manifest.adapter_file)
    result = play_student(config, args.out, world, args, manifest.adapter_sha256)
    record_evaluation(args.out, result)
    seeds = f"seeds {result.seeds[0]}-{result.seeds[-1]}"
    print(f"evaluation on {', '.join(result.layouts)} with {', '.join(result.partners)}, {seeds}:")
    for arm in (STUDENT, RAW):
        print(f"  {arm}: score {result.score[arm].text()}; undo loops an episode {result.oscillations[arm].text()}")
    print(f"  student - raw, paired by episode: {result.score_difference.text()}")
    print(f"  tables in {args.out / result.run_folder}; summary in {args.out / 'manifest.json'}")
    return 1 if result.episodes_failed else 0
