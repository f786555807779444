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

from proagent.eval.plan import EpisodeKey
from proagent.jsonl import read_jsonl
from proagent.runner.records import EpisodeRecord
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

    @property
    def key(self) -> EpisodeKey:
        return EpisodeKey(agent=self.agent, partner=self.partner, layout=self.layout, seat=self.seat, episode=self.episode)


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
    parse = as_eval_record if single_runs else EvalRecord.model_validate
    for record in read_jsonl(path, parse=parse).records:
        if record.key.id not in seen:
            seen.add(record.key.id)
            out.append(record)
    return out


def as_eval_record(data: dict) -> EvalRecord:
    """A play or human run's episode record as an evaluation's, so one report reads every run: the
    agent is the one in the record's seat (``team``; ProAgent in records from before teams) and its
    kind is that name (ProAgent, or the partner agent a human played with)."""
    record = EpisodeRecord.model_validate(data)
    agent = record.team[record.seat] if record.seat < len(record.team) else "proagent"
    return EvalRecord.model_validate({**record.model_dump(), "agent": agent, "agent_kind": agent})
