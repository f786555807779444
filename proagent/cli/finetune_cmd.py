"""`proagent finetune RUN... --out DIR`: a LoRA adapter for the embedded model, taught by the
decisions traced in run folders (`proagent.finetune`). The flags are read once into a
`FinetuneRequest` (`cli/finetune_request.py`), which is what everything below is given."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from proagent.bounded import NumberError, read_float
from proagent.cli.arg_types import bounded_int, positive_float, positive_int, writable_folder
from proagent.cli.finetune_eval import add_eval_flags
from proagent.cli.finetune_request import MAX_SCORE, TARGETS
from proagent.limits import MAX_EPISODES

if TYPE_CHECKING:
    from proagent.cli.finetune_request import FinetuneRequest
    from proagent.eval.config import EvalConfig
    from proagent.eval.world import World
    from proagent.finetune.dataset import DataSelection, PlayedEpisode, SupervisedPair
    from proagent.finetune.train import FinetuneManifest


def _targets(text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    unknown = [t for t in names if t not in TARGETS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma list of {', '.join(TARGETS)}")
    return names


def _skill_names(text: str) -> tuple[str, ...]:
    """``--skills``: a comma list of skill names, without arguments (``pickup``, not ``pickup(onion)``)."""
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names or any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", name) for name in names):
        raise argparse.ArgumentTypeError(f"expected skill names without arguments, e.g. pickup,wait; got {text[:80]!r}")
    return names


def _plan_weight(text: str) -> float:
    """The loss's weight on the plan's skill tokens: above 0, at most 100."""
    try:
        return read_float(text, "value", 0.0, 100.0, above_low=True)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None


def _score(text: str) -> float:
    """An episode score threshold: any finite number (scores may be negative in some worlds)."""
    try:
        return read_float(text, "value", -MAX_SCORE, MAX_SCORE)
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
    p.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=50,
        help="steps between checkpoints (default 50; a resume may change it)",
    )
    p.add_argument(
        "--heldout-every",
        type=positive_int,
        default=None,
        metavar="N",
        help="steps between held-out scores, which take minutes on a large held-out set (default: at every "
        "checkpoint; a resume may change it)",
    )
    p.add_argument(
        "--log-every",
        type=positive_int,
        default=10,
        metavar="N",
        help="steps between progress lines (mean loss, examples/s) (default 10; a resume may change it)",
    )
    p.add_argument("--rank", type=bounded_int(1, 256), default=8, help="LoRA rank (default 8)")
    p.add_argument("--alpha", type=positive_float, default=16.0, help="LoRA alpha; the delta is scaled alpha/rank")
    p.add_argument("--lr", type=positive_float, default=2e-4, help="AdamW learning rate (default 2e-4)")
    p.add_argument(
        "--plan-weight",
        type=_plan_weight,
        default=1.0,
        metavar="W",
        help="weigh the answer tokens that name the chosen skill W times the rest in the loss (default 1: all alike)",
    )
    p.add_argument("--targets", type=_targets, default=TARGETS, help="projections to adapt (default all seven)")
    p.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="initialisation and batch order")
    p.add_argument("--min-score", type=_score, default=None, help="keep episodes that scored at least this")
    p.add_argument("--include-rejected", action="store_true", help="also learn answers the agent did not act on")
    p.add_argument("--keep-duplicates", action="store_true", help="do not drop repeated (prompt, answer) pairs")
    p.add_argument("--max-per-world", type=positive_int, default=None, help="at most N pairs from each world")
    p.add_argument(
        "--max-per-skill",
        type=positive_int,
        default=None,
        metavar="N",
        help="at most N answers of one skill (wait, pickup, ...) from each world, drawn at random with --seed, "
        "before --max-per-world and --balance: a teacher that mostly waits does not teach only waiting",
    )
    p.add_argument(
        "--max-per-answer",
        type=positive_int,
        default=None,
        metavar="N",
        help="at most N answers of one plan with its arguments (pickup(onion), pickup(dish), wait(3), ...) from "
        "each world, drawn at random with --seed, before --max-per-skill: both objects a skill can take are taught",
    )
    p.add_argument(
        "--skills",
        type=_skill_names,
        default=None,
        metavar="NAMES",
        help="teach only answers of these skills, a comma list of names without arguments (e.g. pickup,wait): "
        "a part that corrects some decisions need not reteach the others (default: every skill)",
    )
    p.add_argument(
        "--balance",
        choices=("none", "worlds", "capped"),
        default="none",
        help="worlds: draw the same number of pairs from every world (the smallest world's, or --max-per-world), "
        "at random with --seed; capped: draw up to --max-per-world from each world (all of a smaller one's), at "
        "random with --seed; none (default): keep each world's first --max-per-world",
    )
    p.add_argument("--max-tokens", type=bounded_int(2), default=2048, help="drop pairs longer than N tokens")
    p.add_argument(
        "--holdout",
        type=bounded_int(0, MAX_EPISODES),
        default=0,
        metavar="N",
        help="hold out the last N episodes of each world: never taught, scored (answer loss, answers greedy "
        "decoding writes as taught) with the raw model and at every checkpoint (default 0)",
    )
    p.add_argument("--model", type=Path, default=None, help="base GGUF (default: the bundled SmolLM2-135M)")
    p.add_argument(
        "--init-adapter",
        type=Path,
        default=None,
        metavar="PATH",
        help="start from this adapter's deltas instead of fresh ones (an adapter.gguf `proagent finetune` wrote "
        "for the same base model, with the same --rank, --alpha and --targets)",
    )
    add_eval_flags(p)
    p.set_defaults(run=run)


def _error(message: str) -> int:
    print(f"proagent finetune: error: {message}", file=sys.stderr)
    return 2


def _base_model(request: FinetuneRequest) -> Path:
    """The GGUF to train on: ``--model``, else the bundled one (ValueError: one line)."""
    from proagent.llm.embedded import find_bundled_gguf
    from proagent.llm.types import LLMConfigError

    try:
        base = request.model if request.model is not None else find_bundled_gguf()
    except LLMConfigError as exc:
        raise ValueError(str(exc)) from None
    if not base.is_file():
        raise ValueError(f"--model {base} is not a file")
    return base


def run(args: argparse.Namespace) -> int:
    """The command: its flags read once into the request, then `finetune_runs`."""
    from proagent.cli.finetune_request import FinetuneRequest
    from proagent.request import RequestError

    try:
        request = FinetuneRequest.from_args(args)
    except RequestError as exc:
        return _error(str(exc))
    return finetune_runs(request)


def finetune_runs(request: FinetuneRequest) -> int:
    """Read and filter the runs, render their answers, check the base model and the `--eval`
    request, all before ``--out`` is made; then train, and play the student if asked."""
    from proagent.finetune.dataset import (
        DataFilter,
        RunFolderError,
        heldout_pairs,
        hold_out,
        played_episodes,
        read_run_folder,
        selection_of,
    )

    data_filter = DataFilter(
        min_score=request.min_score,
        accepted_only=not request.include_rejected,
        dedup=not request.keep_duplicates,
        max_per_world=request.max_per_world,
        max_per_skill=request.max_per_skill,
        max_per_answer=request.max_per_answer,
        skills=request.skills,
        max_tokens=request.max_tokens,
        balance=request.balance,
        seed=request.seed,
    )
    out = request.out
    if out.exists() and any(out.iterdir()) and not request.resume:
        return _error(f"--out {out} is not empty; give a new folder, or --resume to continue its checkpoint")
    try:
        pairs = [pair for folder in request.runs for pair in read_run_folder(folder)]
        played = [episode for folder in request.runs for episode in played_episodes(folder)] if request.eval else []
        base = _base_model(request)
        if request.init_adapter is not None and not request.init_adapter.is_file():
            raise ValueError(f"--init-adapter {request.init_adapter} is not a file")
    except (RunFolderError, ValueError) as exc:
        return _error(str(exc))
    taught, held = hold_out(pairs, request.holdout)
    kept, selection = selection_of(request.runs, pairs, data_filter, taught)
    heldout = heldout_pairs(held, kept, data_filter)
    selection = selection.model_copy(update={"holdout_episodes": request.holdout})
    if not kept:
        return _error(_nothing_kept(len(pairs), selection))
    evaluation = _eval_request(request, kept, played, base) if request.eval else None
    if isinstance(evaluation, str):
        return _error(evaluation)
    return _train(request, (kept, heldout), selection, base, evaluation)


def _nothing_kept(read: int, selection: DataSelection) -> str:
    """Why no pair is left: the filters, or answers the student's format cannot hold (the first reason)."""
    dropped = selection.answers.dropped if selection.answers is not None else {}
    if dropped:
        reason, n = max(dropped.items(), key=lambda item: item[1])
        return (
            f"none of the {read} traced answers can be taught: {sum(dropped.values())} cannot be written in the "
            f"student's answer format (most: {reason}, {n}), the rest do not pass the filters"
        )
    return f"none of the {read} traced answers passes the filters; loosen --min-score or the others"


def _eval_request(
    request: FinetuneRequest, kept: list[SupervisedPair], played: list[PlayedEpisode], base: Path
) -> tuple[EvalConfig, World] | str:
    """The checked `--eval` request and the world it plays in, or the one-line problem."""
    from proagent.cli.finetune_eval import check_request, eval_request
    from proagent.eval.config import ConfigError
    from proagent.eval.world import World

    world = World()
    llm = "embedded" if request.model is None else f"embedded:{base.absolute()}"
    try:
        config = eval_request(request, kept, played, llm)
        check_request(config, world)
    except ConfigError as exc:
        return str(exc)
    return config, world


def _train(
    request: FinetuneRequest,
    pairs: tuple[list[SupervisedPair], list[SupervisedPair]],
    selection: DataSelection,
    base: Path,
    evaluation: tuple[EvalConfig, World] | None,
) -> int:
    from proagent.finetune.chat_tokens import ChatTokenizer
    from proagent.finetune.dataset import to_examples, world_counts
    from proagent.finetune.lora import LoraConfig
    from proagent.finetune.train import TrainConfig, finetune

    kept, held = pairs
    tokenizer = ChatTokenizer(base)
    examples = to_examples(kept, tokenizer, request.max_tokens)
    heldout = to_examples(held, tokenizer, request.max_tokens)
    if not examples:
        return _error(f"every kept answer is longer than --max-tokens {request.max_tokens}")
    selection = selection.model_copy(
        update={"worlds_taught": world_counts(examples), "worlds_heldout": world_counts(heldout)}
    )
    lora = LoraConfig(
        rank=request.rank, alpha=request.alpha, targets=request.targets, learning_rate=request.lr, seed=request.seed
    )
    config = TrainConfig(
        lora=lora,
        steps=request.steps,
        batch_size=request.batch_size,
        checkpoint_every=request.checkpoint_every,
        heldout_every=request.heldout_every,
        log_every=request.log_every,
        plan_weight=request.plan_weight,
    )
    worlds = sorted(selection.worlds_taught)
    folders = ", ".join(p.name for p in request.runs)
    source = f"{len(request.runs)} run folder(s): {folders}; filter {selection.data_filter!r}; worlds {worlds}"
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("proagent.finetune")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        print(_set_line(selection, request, len(kept), len(heldout)))
        manifest = finetune(
            examples,
            base,
            request.out,
            config,
            source=source,
            resume=request.resume,
            selection=selection,
            heldout=heldout,
            init_adapter=request.init_adapter,
        )
    except ValueError as exc:
        return _error(str(exc))
    finally:
        log.removeHandler(handler)
    print(
        f"adapter: {request.out / manifest.adapter_file} (sha256 {manifest.adapter_sha256[:12]}); "
        f"final loss {manifest.losses[-1].loss:.4f}; {manifest.examples_per_s:.2f} examples/s"
        + (f"; {manifest.heldout[0].text()} at step 0, {manifest.heldout[-1].text()}" if manifest.heldout else "")
    )
    if evaluation is None:
        return 0
    return _evaluate(request, *evaluation, manifest)


def _counts(per_world: dict[str, int]) -> str:
    return ", ".join(f"{world} {n}" for world, n in per_world.items())


def _set_line(selection: DataSelection, request: FinetuneRequest, kept: int, heldout: int) -> str:
    """The command's first line: what is taught per world once --max-tokens has dropped the long
    answers (naming a world that lost them all), the answer format, the steps, the held-out set."""
    taught = selection.worlds_taught
    n = sum(taught.values())
    line = f"{n} examples ({len(taught)} world(s): {_counts(taught)}) from {kept} kept answers"
    if n < kept:
        lost = [world for world in selection.worlds_kept if world not in taught]
        line += f" ({kept - n} longer than --max-tokens {request.max_tokens} dropped"
        line += f"; every answer of {', '.join(lost)})" if lost else ")"
    line += f"; answers taught as {_rendered(selection)}; training {request.steps} steps"
    return line + (f"; {heldout} held-out answers ({_counts(selection.worlds_heldout)}) scored" if heldout else "")


def _rendered(selection: DataSelection) -> str:
    """The answer formats of the set and what was dropped, for the command's first line."""
    answers = selection.answers
    if answers is None:
        return "written"
    formats = ", ".join(f"{fmt} {n}" for fmt, n in answers.formats.items()) or "none"
    dropped = sum(answers.dropped.values())
    return f"{formats}" + (f" ({dropped} that the student's format cannot hold dropped)" if dropped else "")


def _evaluate(request: FinetuneRequest, config: EvalConfig, world: World, manifest: FinetuneManifest) -> int:
    """Play the student and the raw model, record the summary in the manifest, print it."""
    from proagent.cli.finetune_eval import play_student, with_adapter
    from proagent.finetune.scores import RAW, STUDENT
    from proagent.finetune.train import record_evaluation

    config = with_adapter(config, request.out / manifest.adapter_file)
    result = play_student(config, request.out, world, request, manifest.adapter_sha256)
    record_evaluation(request.out, result)
    seeds = f"seeds {result.seeds[0]}-{result.seeds[-1]}"
    print(f"evaluation on {', '.join(result.layouts)} with {', '.join(result.partners)}, {seeds}:")
    for arm in (STUDENT, RAW):
        print(f"  {arm}: score {result.score[arm].text()}; undo loops an episode {result.oscillations[arm].text()}")
    print(f"  student - raw, paired by episode: {result.score_difference.text()}")
    print(f"  tables in {request.out / result.run_folder}; summary in {request.out / 'manifest.json'}")
    return 1 if result.episodes_failed else 0
