"""What a ProAgent keeps of its decisions: each planner attempt, each decision (the trace's
cognition) and the episode's running counts of model calls, tokens, cost and skill outcomes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from proagent.agent.verificator import VerifyRound
from proagent.llm.types import Completion, StructuredOutput


class Attempt(BaseModel):
    messages: list[dict]
    # the answer's schema the request carried (None: free text), so a student can be taught this
    # answer in the format its grammar lets it write (`proagent.finetune.answers`)
    structured: StructuredOutput | None
    response: str
    plan: str | None = None
    failures: list[str] = []
    explanation: str | None = None
    parse_error: str | None = None
    verification: list[VerifyRound] = []  # llm3 Verificator: the rounds on this rejection, in order


class LoopRecord(BaseModel):
    """One undo loop the guard found at a decision (agent/loops.py): the skill that would repeat
    it, the step it was chosen before, the skills that undid it since, and whether the Verificator
    blocked it (the check on) or only counted it (off)."""

    skill: str
    since_step: int
    undone_by: list[str]
    blocked: bool


class Decision(BaseModel):
    step: int
    attempts: list[Attempt]
    skill: str
    analysis: str | None
    intention: str | None
    fallback: bool  # no acceptable plan within max_replans: waited one step
    llm_calls: int
    llm_latency_s: float
    overhead_s: float  # time in the decision not spent waiting for the model
    message: str | None = None  # MAEIL: what the accepted answer tells teammates
    loops: list[LoopRecord] = Field(default_factory=list)  # undo loops found at this decision


@dataclass
class AgentStats:
    llm_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    reused_prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_latency_s: float = 0.0
    cost_usd: float = 0.0
    decisions: int = 0
    rejections: int = 0  # Verificator failures
    parse_failures: int = 0
    fallbacks: int = 0
    oscillations: int = (
        0  # decisions taken where later skills had undone an earlier one, with no progress (agent/loops.py)
    )
    retries: int = 0  # failed model requests retried before an answer came (not cache hits)
    retry_causes: Counter = field(default_factory=Counter)  # error class name -> retries it caused
    skills_done: int = 0
    skills_failed: int = 0
    overhead_s: list[float] = field(default_factory=list)
    skill_durations: list[int] = field(default_factory=list)

    def add(self, completion: Completion) -> None:
        self.llm_calls += 1
        self.cached_calls += int(completion.cached)
        self.prompt_tokens += completion.prompt_tokens
        self.reused_prompt_tokens += completion.reused_prompt_tokens
        self.retry_causes.update(completion.retry_causes)
        self.completion_tokens += completion.completion_tokens
        self.llm_latency_s += completion.latency_s
        self.retries += completion.retries
        self.cost_usd += 0.0 if completion.cached else (completion.cost_usd or 0.0)  # replays are free
