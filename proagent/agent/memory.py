"""Memory: a fixed-length FIFO of the agent's own trajectory, with recent-K retrieval.

The knowledge library (task, rules, demos) is the long-term half and lives in the system prompt;
this is the short-term half, rendered into each planner call.

What a retrieval hands the prompt is a `MemoryRetrieval`: ``outcomes`` (the state summary, skill,
outcome, predicted intention and belief of each decision, without its analysis: what the prompt
sets before the paper's shape rendered, so their prompts stay as they were) or ``trajectory`` (the
paper's recent-K trajectory: state, analysis, belief and skill, so the model reads its own earlier
reasoning). The analysis is left out by retrieval, not by a template's choice, so a set that
renders it shows it only when the agent was configured to retrieve it.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

from pydantic import BaseModel

MemoryRetrieval = Literal["outcomes", "trajectory"]
MEMORY_RETRIEVALS: tuple[MemoryRetrieval, ...] = ("outcomes", "trajectory")


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

    def retrieve(self, k: int, retrieval: MemoryRetrieval) -> list[dict]:
        """The last ``k`` records as the prompt's ``memory`` (oldest first); ``outcomes`` blanks each
        analysis (see the module's docstring)."""
        records = [r.model_dump() for r in self.recent(k)]
        if retrieval == "outcomes":
            return [{**r, "analysis": None} for r in records]
        return records

    def find_by_step(self, step: int) -> MemoryRecord | None:
        for record in reversed(self.records):
            if record.step == step:
                return record
        return None
