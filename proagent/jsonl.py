"""The one reader of a run folder's JSON-lines files (episodes.jsonl, trace.jsonl, failures.jsonl).

Writers append whole lines, but a killed writer can leave a torn last line and a bad disk or copy
can leave bytes that are not UTF-8. Neither may stop a report, a resume or a replay: the file is
read as bytes, each line is decoded and parsed on its own, and a line that is not a whole JSON
object (or not a valid record, when ``parse`` is given) is skipped. The skipped lines are returned
and reported in one warning per file, so nothing is dropped silently.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_LOG = logging.getLogger(__name__)
_SHOWN = 5  # skipped lines named in the warning; the rest are counted


@dataclass(frozen=True)
class Skipped:
    """A line that was not read: its number (1-based) and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


@dataclass
class JsonlLines:
    records: list[Any] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def read_jsonl(path: Path, parse: Callable[[dict], Any] | None = None, warn: bool = True) -> JsonlLines:
    """The JSON objects of ``path`` in file order (none when it does not exist), each passed through
    ``parse`` when given (a ValueError from it, pydantic's ValidationError included, skips the line).
    Blank lines are ignored; every other unreadable line is listed in ``skipped`` and, with ``warn``,
    reported in one logging warning."""
    path = Path(path)
    out = JsonlLines()
    if not path.exists():
        return out
    raw_lines = path.read_bytes().split(b"\n")
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            out.skipped.append(Skipped(number, "invalid UTF-8"))
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            out.skipped.append(Skipped(number, "torn JSON"))
            continue
        except RecursionError:  # a crafted line of nested brackets, deeper than the parser goes
            out.skipped.append(Skipped(number, "nested too deep"))
            continue
        if not isinstance(value, dict):
            out.skipped.append(Skipped(number, f"a JSON {type(value).__name__}, not an object"))
            continue
        if parse is not None:
            try:
                value = parse(value)
            except ValueError as exc:
                out.skipped.append(Skipped(number, f"not a valid record ({_first_line(exc)})"))
                continue
        out.records.append(value)
    if warn:
        warn_skipped(path, out.skipped)
    return out


def warn_skipped(path: Path, skipped: list[Skipped]) -> None:
    """One warning line naming the file and (the first few of) its skipped lines."""
    if not skipped:
        return
    shown = "; ".join(str(s) for s in skipped[:_SHOWN])
    more = f"; and {len(skipped) - _SHOWN} more" if len(skipped) > _SHOWN else ""
    noun = "line" if len(skipped) == 1 else "lines"
    _LOG.warning("%s: skipped %d unreadable %s (%s%s)", path, len(skipped), noun, shown, more)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:80]


def episode_id(record: dict) -> str:
    """The episode a line of episodes.jsonl or trace.jsonl belongs to. Play and human runs: the
    episode index; eval: the key (agent|partner|layout|pSeat|episode), which trace lines carry as
    ``key`` and records as their fields. Which process played it is the separate ``attempt`` tag."""
    if "key" in record:
        return str(record["key"])
    if "agent" in record and "agent_kind" in record:
        return f"{record['agent']}|{record['partner']}|{record['layout']}|p{record['seat']}|{record['episode']}"
    return str(record.get("episode", 0))


def finished_attempt(record: dict, attempts: dict[str, list[dict]]) -> str | None:
    """Of the trace's attempts at a finished episode (attempt tag -> its lines), the one that
    produced ``record``: the attempt the record names; for a record that names none (play, human,
    eval records written before attempts were tagged) the untagged lines, else the last attempt.
    None when the trace has no lines of that attempt: another process's partial lines (a killed
    attempt) are never taken for the finished episode."""
    named = str(record.get("attempt", ""))
    if named in attempts:
        return named
    return None if named else next(reversed(attempts), None)
