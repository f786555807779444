"""A supervised set from run folders: (the prompt the agent sent, the answer it acted on).

Any agent that writes traces is a teacher: a hosted model, the scripted planner, a person. Each
decision in ``trace.jsonl`` keeps its attempts with the messages sent, the answer's schema the
request carried and the answer received; the answer the agent acted on is the last attempt of a
decision that did not fall back, with no Verificator failure and no parse error. Each answer is
taught in the student's answer format (`proagent.finetune.answers`: the JSON its grammar lets it
write), and one that cannot be is dropped and counted. Filters: the episode's final score
(``episodes.jsonl``), accepted answers only, duplicates dropped (same messages, same answer as
taught), at most N pairs per world, at most N answers of one skill per world (a seeded draw: a
teacher that mostly waits, as the scripted planner does in forced_coordination while the other
cook works, would otherwise teach a student that waiting is the answer to every state), and
balance: an equal, seeded draw from every world, so a world that needs many decisions an episode
does not swamp one that needs few. Which pairs are kept
is a pure function of the folders and the filter, so a manifest's data hash identifies the set.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proagent.agent.presets import EMBEDDED_ANALYSIS_CHARS
from proagent.finetune.answers import JSON_STYLE, Unrendered, answer_format, plan_value_bytes, student_answer
from proagent.finetune.batches import Example
from proagent.finetune.chat_tokens import ChatTokenizer
from proagent.llm.types import Message, StructuredOutput

__all__ = [
    "AnswerRendering",
    "DataFilter",
    "DataSelection",
    "PlayedEpisode",
    "RunFolderError",
    "SupervisedPair",
    "heldout_pairs",
    "hold_out",
    "plan_span",
    "played_episodes",
    "read_run_folder",
    "render_answers",
    "select_pairs",
    "selection_of",
    "skill_of",
    "system_prompt_group",
    "to_examples",
    "world_counts",
]

Balance = Literal["none", "worlds", "capped"]


class RunFolderError(ValueError):
    """A folder given as a run is not one (one line, for the command's exit 2)."""


class DataFilter(BaseModel):
    """Which traced decisions become training pairs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_score: float | None = None  # keep episodes whose final score is at least this
    accepted_only: bool = True  # the answer acted on (no Verificator failure, no parse error, no fallback)
    dedup: bool = True
    max_per_world: int | None = Field(default=None, ge=1)
    max_per_skill: int | None = Field(default=None, ge=1)  # answers of one skill (wait, pickup...) per world
    max_per_answer: int | None = Field(default=None, ge=1)  # answers of one plan (pickup(onion), wait(3)...) per world
    skills: tuple[str, ...] | None = None  # teach only answers of these skills (names, no arguments); None: all
    max_tokens: int | None = Field(default=None, ge=2)  # prompt + answer, in the student's tokens
    # "worlds": draw the same number of pairs from every world (the smallest world's count, or
    # max_per_world if that is fewer), at random with ``seed``; "capped": draw at most max_per_world
    # from each world (all of a smaller world's), at random with ``seed``; "none": keep each world's first N
    balance: Balance = "none"
    seed: int = 0

    def admits(self, pair: SupervisedPair) -> bool:
        """Whether ``pair`` passes the per-pair filters (acted on, episode score, skill), before its
        answer is rendered and the set-wide ones (dedup, caps, balance) apply."""
        if self.accepted_only and not pair.accepted:
            return False
        if self.skills is not None and skill_of(pair) not in self.skills:
            return False
        return self.min_score is None or pair.score >= self.min_score


class AnswerRendering(BaseModel):
    """The format the teacher's answers were taught in (`proagent.finetune.answers`), for the
    manifest: of the answers that passed the per-pair filters, how many were written in each format
    and how many could not be, by reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    formats: dict[str, int]  # "json": the request's schema, as its grammar emits it; "text": no schema, as written
    dropped: dict[str, int]  # answers the student's format cannot hold, by reason
    analysis_max_chars: int | None = None  # the student's analysis bound (None: each request's own)
    json_style: str = JSON_STYLE


class DataSelection(BaseModel):
    """How a training set was chosen, for the manifest: the filter (with the balance's seed), the
    pairs per world before and after it, the examples per world left once ``max_tokens`` drops the
    long ones (a world's prompts can all be longer), and the answer format they were taught in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: list[str]
    data_filter: DataFilter
    pairs_read: int
    worlds_read: dict[str, int]  # answered attempts per world, before the filters
    worlds_kept: dict[str, int]  # pairs per world that passed them
    answers: AnswerRendering | None = None  # None: a set from before answers were rendered
    holdout_episodes: int = 0  # `--holdout N`: the last N episodes of each world are scored, never taught
    worlds_heldout: dict[str, int] = {}  # held-out answers scored per world (none a taught prompt; within max_tokens)
    worlds_taught: dict[str, int] = {}  # examples per world: the kept pairs within max_tokens (what is taught)


class SupervisedPair(BaseModel):
    """One decision of one run: what was asked, what the teacher answered, where it came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...]
    answer: str  # as the teacher wrote it, or, once rendered (`render_answers`), as the student writes it
    structured: StructuredOutput | None = None  # the answer's schema the request carried (None: free text)
    plan: str | None = None  # the skill the agent read from the answer while playing (None: none read)
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
    messages = tuple(Message(role=m["role"], content=m["content"]) for m in attempt["messages"])
    if "structured" not in attempt:
        raise RunFolderError(
            f"{run} was recorded without each request's answer schema (by an older proagent), so its answers "
            "cannot be taught in the student's format; play it again to teach from it"
        )
    return SupervisedPair(
        messages=messages,
        answer=str(attempt["response"]),
        structured=attempt["structured"],
        plan=attempt.get("plan"),
        world=world,
        run=run,
        episode=int(record.get("episode", 0)),
        step=int(record.get("step", 0)),
        score=score,
        accepted=accepted,
    )


def _run_config(run_dir: Path) -> dict:
    """The run's config.json, after checking that the folder holds what a run writes."""
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
    return config


class PlayedEpisode(BaseModel):
    """An episode a teaching run played: where, with whom, in which seat, on which seed, with which
    prompt set. Why: an evaluation of the student plays the same worlds and partners by default,
    on seeds the teacher never played."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: str  # the run folder's name, as `SupervisedPair.run`
    episode: int
    domain: str
    layout: str
    partner: str
    seat: int
    seed: int
    prompt: str | None = None

    @property
    def world(self) -> str:
        return f"{self.domain}/{self.layout}"


def played_episodes(run_dir: Path) -> list[PlayedEpisode]:
    """The episodes ``run_dir``'s ``episodes.jsonl`` records (its config.json gives the world and prompt set)."""
    config = _run_config(run_dir)
    agent = config.get("agent")
    prompt = agent.get("prompt") if isinstance(agent, dict) else None
    out = []
    try:
        for record in _lines(run_dir / "episodes.jsonl"):
            out.append(
                PlayedEpisode(
                    run=run_dir.name,
                    episode=int(record.get("episode", 0)),
                    domain=str(config.get("domain", "overcooked")),
                    layout=str(config.get("layout") or record.get("layout", "")),  # as the pairs' world names it
                    partner=str(record.get("partner") or config.get("partner", "")),
                    seat=int(record.get("seat", config.get("seat", 0))),
                    seed=int(record.get("seed", 0)),
                    prompt=prompt if isinstance(prompt, str) else None,
                )
            )
    except (TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, RunFolderError):
            raise
        raise RunFolderError(f"{run_dir / 'episodes.jsonl'} holds a record this reader cannot use: {exc}") from exc
    return out


def read_run_folder(run_dir: Path) -> list[SupervisedPair]:
    """Every answered attempt of every decision in ``run_dir`` (filters come later)."""
    config = _run_config(run_dir)
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
    """The pairs ``data_filter`` keeps, in the order given: the per-pair filters and dedup, then the
    cap per plan, the cap per skill, then each world's cap (without balance, a world's first N) or the balance."""
    kept, seen = [], set()
    for pair in pairs:
        key = (pair.messages, pair.answer)
        if not data_filter.admits(pair) or (data_filter.dedup and key in seen):
            continue
        seen.add(key)
        kept.append(pair)
    if data_filter.max_per_answer is not None:
        kept = _capped(kept, data_filter.max_per_answer, data_filter.seed, answer_of)
    if data_filter.max_per_skill is not None:
        kept = _capped(kept, data_filter.max_per_skill, data_filter.seed, skill_of)
    if data_filter.balance != "none":
        return _balanced(kept, data_filter)
    if data_filter.max_per_world is None:
        return kept
    per_world: Counter[str] = Counter()
    capped = []
    for pair in kept:
        if per_world[pair.world] < data_filter.max_per_world:
            per_world[pair.world] += 1
            capped.append(pair)
    return capped


def skill_of(pair: SupervisedPair) -> str:
    """The skill a pair's answer plays, without its arguments (``wait(3)`` -> ``wait``; '' for none)."""
    return (pair.plan or "").split("(", 1)[0].strip()


def answer_of(pair: SupervisedPair) -> str:
    """The plan a pair's answer plays, with its arguments (``pickup(onion)``; '' for none)."""
    return (pair.plan or "").strip()


def _capped(
    pairs: Sequence[SupervisedPair], cap: int, seed: int, label: Callable[[SupervisedPair], str]
) -> list[SupervisedPair]:
    """At most ``cap`` pairs of each (world, ``label``), drawn at random with ``seed`` (each group its
    own stream), kept in the order given. ``skill_of`` caps per skill; ``answer_of`` per plan with its
    arguments: where the right answer is *which* object to take (``pickup(dish)`` when an onion already
    waits on the counter, ``pickup(onion)`` when a dish does), a cap per skill lets the commoner
    argument outnumber the other and a student learns the majority, not the state."""
    return _draw_per_group(pairs, lambda pair: f"{pair.world}\0{label(pair)}", lambda size: min(size, cap), seed)


def hold_out(pairs: Sequence[SupervisedPair], episodes: int) -> tuple[list[SupervisedPair], list[SupervisedPair]]:
    """(taught, held out): the pairs of the last ``episodes`` episodes of each world, by run folder
    name and episode number (a run folder's name starts with its time, so the last are the latest
    played), are held out; a world with no more episodes than that is taught whole. Why whole
    episodes: a decision's neighbours in its own episode share most of its state, so a held-out
    decision from a taught episode would measure memory, not play."""
    by_world: dict[str, set[tuple[str, int]]] = {}
    for pair in pairs:
        by_world.setdefault(pair.world, set()).add((pair.run, pair.episode))
    held = {
        (world, key)
        for world, keys in by_world.items()
        if 0 < episodes < len(keys)
        for key in sorted(keys)[len(keys) - episodes :]
    }
    taught = [pair for pair in pairs if (pair.world, (pair.run, pair.episode)) not in held]
    return taught, [pair for pair in pairs if (pair.world, (pair.run, pair.episode)) in held]


def heldout_pairs(
    held: Sequence[SupervisedPair], taught: Sequence[SupervisedPair], data_filter: DataFilter
) -> list[SupervisedPair]:
    """The held-out set to score: ``held``'s pairs that pass the per-pair filters, rendered in the
    student's format (those that cannot be are dropped), duplicates dropped, and none whose prompt
    is also taught (``taught``, rendered): a prompt seen in training is not held out."""
    seen = {pair.messages for pair in taught}
    rendered, _ = render_answers(pair for pair in held if data_filter.admits(pair))
    out = []
    for pair in rendered:
        if pair.messages not in seen:
            seen.add(pair.messages)
            out.append(pair)
    return out


def _world_rng(seed: int, world: str) -> np.random.Generator:
    """A world's own stream: its draw does not change when another world joins the set."""
    return np.random.default_rng([seed, int.from_bytes(hashlib.sha256(world.encode()).digest()[:4], "big")])


def _balanced(pairs: Sequence[SupervisedPair], data_filter: DataFilter) -> list[SupervisedPair]:
    """``worlds``: the same number from every world, the smallest world's count, or ``max_per_world``
    if fewer; ``capped``: each world's count up to ``max_per_world`` (a world with fewer gives all
    it has, so a world whose scenario is fixed and gives few distinct decisions does not shrink the
    others). Each world's drawn at random (``data_filter.seed``) and kept in the order given. Why a
    draw and not each world's first N: the first N decisions of a run are its first episode's opening."""
    cap = data_filter.max_per_world
    if data_filter.balance == "worlds":
        n = min(min(Counter(pair.world for pair in pairs).values(), default=0), cap or len(pairs))
        return _draw_per_group(pairs, lambda pair: pair.world, lambda size: n, data_filter.seed)
    return _draw_per_group(pairs, lambda pair: pair.world, lambda size: min(size, cap or size), data_filter.seed)


def _draw_per_group(
    pairs: Sequence[SupervisedPair],
    group_of: Callable[[SupervisedPair], str],
    size_of: Callable[[int], int],
    seed: int,
) -> list[SupervisedPair]:
    """``size_of(its count)`` pairs of each group, drawn at random from the group's own stream
    (``seed`` and the group's name: a group's draw does not change when another joins), in the order given."""
    groups: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        groups.setdefault(group_of(pair), []).append(index)
    chosen: set[int] = set()
    for group, indices in groups.items():
        size = size_of(len(indices))
        if size >= len(indices):
            chosen.update(indices)
            continue
        picks = _world_rng(seed, group).choice(len(indices), size=size, replace=False)
        chosen.update(indices[int(i)] for i in picks)
    return [pair for index, pair in enumerate(pairs) if index in chosen]


def render_answers(
    pairs: Iterable[SupervisedPair], analysis_max_chars: int | None = EMBEDDED_ANALYSIS_CHARS
) -> tuple[list[SupervisedPair], AnswerRendering]:
    """Each pair with its answer as the student writes it (`student_answer`); those that cannot be
    written so are dropped and counted by reason. ``analysis_max_chars``: the student's analysis
    bound (default: the embedded model's, as every front end plays it; None: each request's own)."""
    kept, formats, dropped = [], Counter(), Counter()
    for pair in pairs:
        try:
            answer = student_answer(pair.answer, pair.structured, pair.plan, analysis_max_chars)
        except Unrendered as exc:
            dropped[exc.reason] += 1
            continue
        formats[answer_format(pair.structured)] += 1
        kept.append(pair.model_copy(update={"answer": answer}))
    rendering = AnswerRendering(
        formats=dict(sorted(formats.items())),
        dropped=dict(sorted(dropped.items())),
        analysis_max_chars=analysis_max_chars,
    )
    return kept, rendering


def selection_of(
    runs: Sequence[Path],
    pairs: Sequence[SupervisedPair],
    data_filter: DataFilter,
    taught: Sequence[SupervisedPair] | None = None,
) -> tuple[list[SupervisedPair], DataSelection]:
    """The training set drawn from ``taught`` (``pairs``, every answered attempt of ``runs``, less any
    held-out episodes; all of ``pairs`` when None): the per-pair filters, the answers rendered in the
    student's format, then dedup, caps and balance; and its record, which counts what was read."""
    taught = pairs if taught is None else taught
    rendered, rendering = render_answers(pair for pair in taught if data_filter.admits(pair))
    kept = select_pairs(rendered, data_filter)
    selection = DataSelection(
        runs=[str(folder) for folder in runs],
        data_filter=data_filter,
        pairs_read=len(pairs),
        worlds_read=world_counts(pairs),
        worlds_kept=world_counts(kept),
        answers=rendering,
    )
    return kept, selection


def world_counts(pairs: Iterable[SupervisedPair | Example]) -> dict[str, int]:
    """Pairs (or their examples) per world, by world name: what the manifest records of a set before
    and after the filters and the token cut."""
    return dict(sorted(Counter(pair.world for pair in pairs).items()))


def system_prompt_group(messages: Sequence[Message]) -> str:
    """The batching group of a prompt: a digest of its system message (every seat and world has its
    own), so a batch shares its whole system prompt (`proagent.finetune.batches.batch_plan`)."""
    system = messages[0].content if messages and messages[0].role == "system" else ""
    return hashlib.sha256(str(system).encode("utf-8")).hexdigest()[:16]


def to_examples(pairs: Sequence[SupervisedPair], tokenizer: ChatTokenizer, max_tokens: int | None) -> list[Example]:
    """Token ids of each pair as llama.cpp builds them; pairs longer than ``max_tokens`` are dropped."""
    out = []
    for pair in pairs:
        prompt, answer = tuple(tokenizer.prompt(pair.messages)), tuple(tokenizer.answer(pair.answer))
        example = Example(
            prompt=prompt, answer=answer, group=system_prompt_group(pair.messages), world=pair.world,
            plan_span=plan_span(tokenizer.byte_ends(answer), plan_value_bytes(pair.answer)),
        )  # fmt: skip
        if max_tokens is None or len(example.prompt) + len(example.answer) <= max_tokens:
            out.append(example)
    return out


def plan_span(byte_ends: Sequence[int], plan_bytes: tuple[int, int] | None) -> tuple[int, int] | None:
    """The answer tokens [start, end) that overlap the plan's bytes ``plan_bytes`` (`plan_value_bytes`),
    given where each token ends (`ChatTokenizer.byte_ends`); None without a plan."""
    if plan_bytes is None:
        return None
    first, last = plan_bytes
    starts = [0, *byte_ends[:-1]]
    covering = [i for i, (a, b) in enumerate(zip(starts, byte_ends, strict=True)) if a < last and b > first]
    return (covering[0], covering[-1] + 1) if covering else None
