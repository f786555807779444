"""A run's episodes as people name them: `proagent replay --list` and ``--episode N [--pair P]``.

Episodes are numbered from 1 in everything people read (`proagent.numbers.episode_label`); the
records keep their 0-based ``episode`` index. ``--episode N`` picks the episode with that number,
not the N-th to finish: an evaluation's episodes finish in any order. An evaluation plays the same
episode number once per pair (agent|partner|layout|seat), so there ``--pair`` says which.
"""

from __future__ import annotations

from pydantic import BaseModel

from proagent.llm.sanitize import clean_field
from proagent.numbers import episode_label, format_score
from proagent.web.replay_data import ReplayError, RunTrace


class EpisodeEntry(BaseModel):
    """One line of ``--list``: where the episode is in the page's list, and what it was."""

    position: int
    number: int  # 1-based, as people count
    pair: str  # agent|partner|layout|pSeat in eval runs; empty in play and human runs
    partner: str
    seed: int | None
    score: str  # `format_score`, "–" for an episode without a record
    steps: int


def episode_entries(run: RunTrace) -> list[EpisodeEntry]:
    """Every listed episode of ``run`` in the page's order."""
    entries = []
    for position, trace in enumerate(run.episodes):
        outcome = trace.outcome or {}
        score = outcome.get("score")
        seed = outcome.get("seed")
        entries.append(
            EpisodeEntry(
                position=position,
                number=trace.episode + 1,
                pair=_printable(trace.group),
                partner=_printable(str(outcome.get("partner") or run.config.get("partner") or "")),
                seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
                score=format_score(float(score))
                if isinstance(score, int | float) and not isinstance(score, bool)
                else "–",
                steps=len(trace.records),
            )
        )
    return entries


def _printable(text: str) -> str:
    """A name read from a run folder, made safe for a terminal: a shared folder is untrusted, and
    an escape sequence in a partner's name would otherwise reach the terminal raw (clear the
    screen, set the window title). Control characters go, the name stays on one line."""
    return clean_field(text, one_line=True)[:120]


def select_episode(run: RunTrace, number: int | None, pair: str | None = None) -> int:
    """The position in ``run.episodes`` of episode ``number`` (1-based; None: the first listed) of
    ``pair`` (needed where several pairs played that number); ReplayError naming the choices."""
    entries = [e for e in episode_entries(run) if pair is None or e.pair == pair]
    if pair is not None and not entries:
        pairs = sorted({e.pair for e in episode_entries(run)})
        raise ReplayError(f"--pair {pair!r} is not in this run; its pairs: {', '.join(pairs) or '(one, unnamed)'}")
    if number is None:
        return entries[0].position
    chosen = [e for e in entries if e.number == number]
    if not chosen:
        numbers = sorted({e.number for e in entries})
        raise ReplayError(
            f"{episode_label(number - 1)} is not in this run; it has episode(s) {_ranges(numbers)} (see --list)"
        )
    if len(chosen) > 1:
        raise ReplayError(
            f"{episode_label(number - 1)} was played by {len(chosen)} pairs in this run: add --pair with one of "
            f"{', '.join(e.pair for e in chosen)} (see --list)"
        )
    return chosen[0].position


def listing(run: RunTrace) -> list[str]:
    """``--list``: a header and one line per episode (number, pair, partner, seed, score, steps)."""
    lines = [f"{'episode':>7}  {'pair':<40}  {'partner':<16}  {'seed':>6}  {'score':>8}  {'steps':>5}"]
    for e in episode_entries(run):
        seed = "–" if e.seed is None else str(e.seed)
        lines.append(f"{e.number:>7}  {e.pair or '-':<40}  {e.partner:<16}  {seed:>6}  {e.score:>8}  {e.steps:>5}")
    return lines


def _ranges(numbers: list[int]) -> str:
    """``1..3, 5`` for [1, 2, 3, 5]."""
    parts: list[str] = []
    for n in numbers:
        if parts and parts[-1].split("..")[-1] == str(n - 1):
            parts[-1] = f"{parts[-1].split('..')[0]}..{n}"
        else:
            parts.append(str(n))
    return ", ".join(parts)
