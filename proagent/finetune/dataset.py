"""A supervised set from run folders: (the prompt the agent sent, the answer it acted on).

Any agent that writes traces is a teacher: a hosted model, the scripted planner, a person. Each
decision in ``trace.jsonl`` keeps its attempts with the messages sent and the answer received;
the answer the agent acted on is the last attempt of a decision that did not fall back, with no
Verificator failure and no parse error. Filters: the episode's final score (``episodes.jsonl``),
accepted answers only, duplicates dropped (same messages, same answer), and at most N pairs per
world so one world does not drown the others. Which pairs are kept is a pure function of the
folders and the filter, so a manifest's data hash identifies the set.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.finetune.batches import Example
from proagent.finetune.chat_tokens import ChatTokenizer
from proagent.llm.types import Message

__all__ = ["DataFilter", "RunFolderError", "SupervisedPair", "read_run_folder", "select_pairs", "to_examples"]


class RunFolderError(ValueError):
    """A folder given as a run is not one (one line, for the command's exit 2)."""


class DataFilter(BaseModel):
    """Which traced decisions become training pairs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_score: float | None = None  # keep episodes whose final score is at least this
    accepted_only: bool = True  # the answer acted on (no Verificator failure, no parse error, no fallback)
    dedup: bool = True
    max_per_world: int | None = Field(default=None, ge=1)
    max_tokens: int | None = Field(default=None, ge=2)  # prompt + answer, in the student's tokens


class SupervisedPair(BaseModel):
    """One decision of one run: what was asked, what the teacher answered, where it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...]
    answer: str
    world: str
    run: str
    episode: int
    step: int
    score: float
    accepted: bool


def _lines(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RunFolderError(f"{path}:{number} is not JSON: {exc.msg}") from exc


def _pair(record: dict, attempt: dict, world: str, run: str, score: float, accepted: bool) -> SupervisedPair:
    return SupervisedPair(
        messages=tuple(Message(role=m["role"], content=m["content"]) for m in attempt["messages"]),
        answer=str(attempt["response"]),
        world=world,
        run=run,
        episode=int(record.get("episode", 0)),
        step=int(record.get("step", 0)),
        score=score,
        accepted=accepted,
    )


def read_run_folder(run_dir: Path) -> list[SupervisedPair]:
    """Every answered attempt of every decision in ``run_dir`` (filters come later)."""
    needed = [run_dir / name for name in ("config.json", "episodes.jsonl", "trace.jsonl")]
    missing = [p.name for p in needed if not p.is_file()]
    if missing:
        raise RunFolderError(
            f"{run_dir} is not a run folder (no {', '.join(missing)}); give folders that play or eval wrote"
        )
    try:
        config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RunFolderError(f"{run_dir / 'config.json'} is not JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise RunFolderError(f"{run_dir / 'config.json'} is not a JSON object")
    world = f"{config.get('domain', 'overcooked')}/{config.get('layout', '')}"
    pairs = []
    try:
        scores = {int(e.get("episode", 0)): float(e.get("score", 0.0)) for e in _lines(run_dir / "episodes.jsonl")}
        for record in _lines(run_dir / "trace.jsonl"):
            decision = record.get("decision") or {}
            attempts = [a for a in decision.get("attempts", []) if a.get("messages") and a.get("response") is not None]
            for index, attempt in enumerate(attempts):
                clean = not attempt.get("failures") and attempt.get("parse_error") is None
                accepted = clean and index == len(attempts) - 1 and not decision.get("fallback", False)
                score = scores.get(int(record.get("episode", 0)), 0.0)
                pairs.append(_pair(record, attempt, world, run_dir.name, score, accepted))
    except (KeyError, TypeError, ValueError, AttributeError, ValidationError) as exc:
        if isinstance(exc, RunFolderError):
            raise
        problem = str(exc).splitlines()[0]
        raise RunFolderError(f"{run_dir} holds a record this reader cannot use: {problem}") from exc
    return pairs


def select_pairs(pairs: Sequence[SupervisedPair], data_filter: DataFilter) -> list[SupervisedPair]:
    """The pairs ``data_filter`` keeps, in the order given (balance keeps each world's first N)."""
    kept, seen, per_world = [], set(), Counter()
    for pair in pairs:
        if data_filter.accepted_only and not pair.accepted:
            continue
        if data_filter.min_score is not None and pair.score < data_filter.min_score:
            continue
        key = (pair.messages, pair.answer)
        if data_filter.dedup and key in seen:
            continue
        if data_filter.max_per_world is not None and per_world[pair.world] >= data_filter.max_per_world:
            continue
        seen.add(key)
        per_world[pair.world] += 1
        kept.append(pair)
    return kept


def to_examples(pairs: Sequence[SupervisedPair], tokenizer: ChatTokenizer, max_tokens: int | None) -> list[Example]:
    """Token ids of each pair as llama.cpp builds them; pairs longer than ``max_tokens`` are dropped."""
    out = []
    for pair in pairs:
        example = Example(prompt=tuple(tokenizer.prompt(pair.messages)), answer=tuple(tokenizer.answer(pair.answer)))
        if max_tokens is None or len(example.prompt) + len(example.answer) <= max_tokens:
            out.append(example)
    return out
