"""episodes.jsonl of an evaluation: one durable line per finished episode, read back deduplicated.

The log is the run's only source of truth: tables, plots and resumption are all computed from it.
Appends are single fsynced writes, so a kill loses at most the episode in flight. A kill during
the write can leave a torn last line; ``seal`` terminates it before the next append so that the
next record does not fuse with it, and ``read`` skips (and reports) any line that is not a whole
record and keeps only the first record of each key, so no episode is ever counted twice.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ConfigDict

from proagent.eval.plan import EpisodeKey
from proagent.jsonl import read_jsonl
from proagent.run_lines import MAX_SEATS, check_plain, typed
from proagent.runner.records import EpisodeRecord, SeatUsage
from proagent.runner.run_folder import RunFolder

EPISODES_FILE = "episodes.jsonl"
FAILURES_FILE = "failures.jsonl"
TRACE_FILE = "trace.jsonl"


class EvalRecord(EpisodeRecord):
    """An EpisodeRecord plus who played it and what it actually cost."""

    agent: str
    agent_kind: str
    spent_usd: float = 0.0  # money spent on fresh LLM calls (cache hits are free)
    attempt: str = ""  # the process that played it; its trace.jsonl lines carry the same id
    topology: str | None = None  # the MAEIL topology it played under (None: no conversation)
    repair: str = "off"  # COOP²-Repair: off, observe (the matched pair's arm without repair) or on

    @property
    def key(self) -> EpisodeKey:
        return EpisodeKey(
            agent=self.agent, partner=self.partner, layout=self.layout, seat=self.seat, episode=self.episode
        )


class EpisodeLog:
    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self.path = folder.path / EPISODES_FILE

    def seal(self) -> None:
        """End a torn last line (a writer killed mid-write) with a newline, durably."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with open(self.path, "rb+") as fh:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())

    def append(self, record: EvalRecord) -> None:
        self.folder.append_jsonl(EPISODES_FILE, record, durable=True)

    def read(self) -> list[EvalRecord]:
        return read_records(self.path)


def read_records(path: Path, single_runs: bool = False) -> list[EvalRecord]:
    """Whole, valid records in file order, the first one of each key only. Lines that are not a
    record (torn by a killed writer, bytes that are not UTF-8) are skipped with one warning.
    ``single_runs``: the file is a play or human run's, whose records name no agent (`as_eval_record`)."""
    seen: set[str] = set()
    out: list[EvalRecord] = []
    parse = as_eval_record if single_runs else strict_record
    for record in read_jsonl(path, parse=parse).records:
        if record.key.id not in seen:
            seen.add(record.key.id)
            out.append(record)
    return out


def as_eval_record(data: dict) -> EvalRecord:
    """A play or human run's episode record as an evaluation's, so one report reads every run: the
    agent is the one in the record's seat (``team``; ProAgent in records from before teams) and its
    kind is that name (ProAgent, or the partner agent a human played with)."""
    check_plain(data)
    record = typed(StrictEpisodeRecord, data)
    agent = record.team[record.seat] if 0 <= record.seat < len(record.team) else "proagent"
    return strict_record({**data, "agent": agent, "agent_kind": agent})


class StrictEpisodeRecord(EpisodeRecord):
    """An EpisodeRecord as read back from a run folder: no coercion, no NaN or infinity."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)


class StrictEvalRecord(EvalRecord):
    """An EvalRecord as read back from a run folder: no coercion, no NaN or infinity."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)


# The record's integer fields that count something (all but the seed): never below 0.
COUNTS = tuple(
    name for name, info in EvalRecord.model_fields.items() if info.annotation in (int, int | None) and name != "seed"
)


def strict_record(data: dict) -> EvalRecord:
    """A line of episodes.jsonl as read back from a run folder, which may come from anywhere: within
    `check_plain`'s bounds (no NaN, no huge numbers, no deep nesting), every field of its type with
    no coercion (a ``"40"`` is not 40 steps), and a seat that can index the team; ValueError otherwise."""
    check_plain(data)
    record = typed(StrictEvalRecord, data)
    if record.seat >= MAX_SEATS:
        raise ValueError(f"seat {record.seat}: beyond any team")
    negative = [name for name in COUNTS if (getattr(record, name) or 0) < 0]
    if negative:
        raise ValueError(f"negative counts: {', '.join(negative)}")
    for stats in record.agent_stats:
        typed(SeatUsage, {k: v for k, v in stats.items() if k in SeatUsage.model_fields and v is not None})
    return record
