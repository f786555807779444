"""The agent's settings: everything that changes how a ProAgent plays, recorded with every run."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from proagent.agent.belief import BeliefMode
from proagent.agent.clock import FALLBACK_HELP, Clock, ClockFallback, parse_clock
from proagent.agent.clock import HELP as CLOCK_HELP
from proagent.agent.memory import MemoryRetrieval
from proagent.agent.prompts import PromptSet
from proagent.agent.verificator_modes import VerificatorMode, from_switch

DEFAULT_SKILL_TIMEOUT = 60  # steps; a world that reasons about how long a skill runs reads this one number


class AgentConfig(BaseModel):
    """Everything that changes the agent's behaviour; recorded with every run."""

    model_config = ConfigDict(allow_inf_nan=False)  # a NaN or infinite setting is refused, not run

    prompt: str = "proagent"
    belief: BeliefMode = "replace"
    memory_k: int = Field(5, ge=0)
    memory_retrieval: MemoryRetrieval | None = Field(
        None,
        description="what each of the memory_k records shows: outcomes, or the paper's trajectory with analyses "
        "(None: the prompt set's)",
    )
    memory_capacity: int = Field(64, ge=1)
    verificator: VerificatorMode | None = Field(
        None,
        description="off, code (the checks + one explanation call) or llm3 (the checks + the paper's three rounds); "
        "None: the prompt set's",
    )
    max_replans: int = Field(4, ge=0, description="re-plans after a failed check before waiting one step")
    legal_only: bool = Field(False, description="offer the model only skills whose preconditions hold now")
    answer_format: str = Field("json", pattern="^(json|text)$")
    analysis_max_chars: int = Field(240, ge=0, description="bound on the analysis in structured output")
    max_tokens: int = Field(160, ge=16)
    explain_max_tokens: int = Field(60, ge=8)
    verify_max_tokens: int = Field(
        160, ge=8, description="tokens of each llm3 Verificator round before the conclusion (explain_max_tokens)"
    )
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    skill_timeout: int = Field(DEFAULT_SKILL_TIMEOUT, ge=1, description="steps before a running skill is abandoned")
    clock: str = Field("turns", max_length=60, description=CLOCK_HELP)
    clock_fallback: ClockFallback = Field("idle", description=FALLBACK_HELP)
    loop_check: bool = Field(
        True, description="Verificator refuses a skill that repeats an undo cycle (agent/loops.py)"
    )
    # Bounds on model text the agent carries on: a server that ignores max_tokens must not grow
    # every later prompt. Above what well-behaved answers reach (explain_max_tokens=60 is ~300
    # characters), so they never cut one and recorded runs replay unchanged.
    explanation_max_chars: int = Field(400, ge=0, description="bound on a failure explanation fed back to the planner")
    carried_text_max_chars: int = Field(
        1000, ge=0, description="bound on the analysis, teammate intention and unreadable-answer error kept or re-sent"
    )
    # Belief probes (agent/probe.py): one extra, metered call per turn of the seat, in worlds that offer them.
    belief_probe: bool = Field(
        False, description="ask the model each turn what it believes of hidden facts (world's belief_probes)"
    )
    probe_template: str = Field("beliefs", pattern=r"^[a-z0-9_]{1,40}$", description="prompts/<world>/probes/<name>.j2")
    probe_max_tokens: int = Field(256, ge=16)
    probe_max_chars: int = Field(2000, ge=0, description="bound on a probe answer before it is read")
    probe_forced: bool = Field(
        False,
        description="the probe must name a value for every item, 'unknown' not allowed: a forced guess, as a linear "
        "probe makes",
    )

    @model_validator(mode="after")
    def _forced_probe_needs_a_probe(self) -> AgentConfig:
        if self.probe_forced and not self.belief_probe:
            raise ValueError("probe_forced (--probe-forced) only applies with belief_probe (--belief-probe)")
        return self

    @field_validator("clock")
    @classmethod
    def _readable_clock(cls, value: str) -> str:
        parse_clock(value)  # a ClockError (a ValueError) names what is wrong
        return value

    def settled_clock(self) -> Clock:
        return parse_clock(self.clock)

    @field_validator("verificator", mode="before")
    @classmethod
    def _verificator_switch(cls, value: object) -> object:
        return from_switch(value)

    def settled_verificator(self, prompts: PromptSet) -> VerificatorMode:
        """The Verificator mode this agent runs: its own setting, else the prompt set's default."""
        return self.verificator or prompts.verificator

    def settled_retrieval(self, prompts: PromptSet) -> MemoryRetrieval:
        """What each recent memory record shows: its own setting, else the prompt set's default."""
        return self.memory_retrieval or prompts.memory
