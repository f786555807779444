"""Memory: a fixed-length FIFO of the agent's own trajectory, with recent-K retrieval.

The knowledge library (task, rules, demos) is the long-term half and lives in the system prompt;
this is the short-term half, rendered into each planner call.
"""

from __future__ import annotations

from collections import deque

from pydantic import BaseModel


class MemoryRecord(BaseModel):
    step: int
    state: str  # short summary of the state when the skill was chosen
    analysis: str | None
    intention: str | None  # predicted teammate skill (or, after a 'replace' correction, the actual one)
    belief: str | None  # belief-correction text added once the teammate's actual skill is known
    skill: str
    outcome: str  # running | done | failed: <reason>


class Memory:
    def __init__(self, capacity: int = 64) -> None:
        self.records: deque[MemoryRecord] = deque(maxlen=capacity)

    def add(self, record: MemoryRecord) -> None:
        self.records.append(record)

    def last(self) -> MemoryRecord | None:
        return self.records[-1] if self.records else None

    def recent(self, k: int) -> list[MemoryRecord]:
        if k <= 0:
            return []
        return list(self.records)[-k:]

    def find_by_step(self, step: int) -> MemoryRecord | None:
        for record in reversed(self.records):
            if record.step == step:
                return record
        return None
