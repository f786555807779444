"""Records written to a run folder: the run's config, one line per step, one line per episode."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from proagent.domains import DEFAULT_DOMAIN
from proagent.llm.scripted import ModelRecord

# Why an episode ended: the world's own end (its horizon or a terminal state), the caller's stop
# condition (`proagent human --until`), or the wall-clock budget (``--wall-clock``).
EndedBy = Literal["world", "until", "wall_clock"]


class RunConfig(BaseModel):
    """Everything needed to reproduce a run."""

    command: str
    domain: str = Field(DEFAULT_DOMAIN, description="the world (runs recorded before domains existed: the default one)")
    layout: str
    partner: str
    partner_provenance: dict[str, dict] | None = Field(
        None, description="partner name -> what fixes its play (a checkpoint's sha256); None in runs recorded before it"
    )
    seat: int
    episodes: int
    seed: int
    horizon: int
    wall_clock_s: float | None = Field(
        None, description="seconds of wall clock an episode may take (--wall-clock, EmCoop's budget); None: no budget"
    )
    llm: str
    model: ModelRecord | None = Field(
        None, description="what the model is: a language model or a scripted planner (None in runs recorded before it)"
    )
    api_base: str | None = None
    llm_timeout_s: float | None = None
    agent: dict
    env_settings: dict | None = Field(
        None, description="the env's rules as the domain reports them (Overcooked: Dynamics)"
    )
    num_agents: int | None = Field(None, description="agents in the episode (None in runs recorded before --agents)")
    topology: dict | None = Field(None, description="MAEIL topology (None: agents act in turn, no conversation)")
    prompt_hashes: dict[str, str]
    git_commit: str
    git_dirty: bool
    versions: dict[str, str]
    created: str


class HumanRunConfig(RunConfig):
    """RunConfig plus the human marker (`proagent human`): the person's seat and how they played."""

    human: dict


class SeatUsage(BaseModel):
    """What one seat's agent spent on its LLM in an episode (all zero for a seat without one).
    Strict: read back from a run folder, a ``"12"`` is not twelve calls."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)

    llm_calls: int = Field(0, ge=0)
    cached_calls: int = Field(0, ge=0)
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    cost_usd: float = Field(0.0, ge=0)

    @classmethod
    def of(cls, stats: dict) -> SeatUsage:
        """From an agent's ``episode_stats()`` (the fields it has; a partner without an LLM has none)."""
        return cls.model_validate({k: v for k, v in stats.items() if k in cls.model_fields and v is not None})


class EpisodeRecord(BaseModel):
    """One finished episode, about the agent in ``seat`` (the focal seat). Common fields for every
    domain; the world's own outcomes (deliveries, blocks moved...) live in ``domain_metrics``; each seat's
    agent statistics in ``agent_stats``; the focal agent's LLM statistics are also top-level."""

    episode: int
    seed: int
    layout: str
    partner: str  # the teammates' names (joined by "+" when there are several)
    seat: int
    team: list[str] = Field(
        default_factory=list, description="agent name per seat (empty in records before N-agent episodes)"
    )
    score: float
    domain_metrics: dict[str, float] = Field(default_factory=dict, description="the domain's per-episode outcomes")
    agent_stats: list[dict] = Field(default_factory=list, description="each seat's episode_stats() (LLM calls, ...)")
    # What the whole team spent on LLMs: a table of the focal seat alone under-reports a team of LLM agents.
    seat_usage: list[SeatUsage] = Field(default_factory=list, description="each seat's LLM calls, tokens and money")
    team_llm_calls: int = Field(0, description="LLM calls of every seat")
    team_tokens: int = Field(0, description="prompt + completion tokens of every seat")
    team_cost_usd: float = Field(0.0, description="money every seat spent on fresh calls")
    process_metrics: dict[str, float] = Field(
        default_factory=dict,
        description="the cooperation process: MAEIL (messages, stages, re-plans) and the domain's constraints",
    )
    steps: int
    wall_time_s: float
    ended_by: EndedBy | None = Field(
        None, description="why the episode ended; None in records written before it was kept"
    )
    shaped_return: list[float]
    model: str | None = Field(
        None,
        description="the focal agent's model ('scripted': a world's scripted planner, no language model); None without "
        "one",
    )
    llm_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    reused_prompt_tokens: int = Field(0, description="prompt tokens served from the model's prefix (KV) cache")
    completion_tokens: int = 0
    llm_latency_s: float = 0.0
    cost_usd: float = 0.0
    decisions: int = 0
    rejections: int = 0
    parse_failures: int = 0
    fallbacks: int = 0
    oscillations: int = Field(0, description="decisions where later skills had undone an earlier one, with no progress")
    retries: int = Field(0, description="failed LLM requests that were retried (fresh calls + retries = requests sent)")
    retry_causes: dict[str, int] = Field(default_factory=dict, description="retries per cause (error class name)")
    skills_done: int = 0
    skills_failed: int = 0
    intention_hits: int = 0
    intention_total: int = 0
    intention_accuracy: float | None = None
    intention_by_teammate: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="teammate seat -> hits, total"
    )
    overhead_ms_median: float | None = None
    skill_duration_mean: float | None = None
    # --clock tokens:N or seconds:S (`proagent.agent.clocked`): None on the turn clock
    clock_idle_steps: int | None = Field(None, description="steps the agent idled waiting for a decision to land")
    clock_stale_steps: int | None = Field(None, description="steps acted on a skill decided on an earlier world")
    clock_fallback_steps: int | None = Field(
        None, description="steps the fallback (--clock-fallback continue, scripted) acted while a decision was pending"
    )
    decisions_per_100_steps: float | None = None
    decision_steps_mean: float | None = Field(None, description="world steps a decision took, mean")
    # Belief probes (agent/probe.py; --belief-probe): 0/None in runs without them.
    belief_probes: int = Field(0, description="turns the focal agent was asked what it believes")
    belief_seen_accuracy: float | None = Field(None, description="mean over probed turns: items the seat had seen")
    belief_unseen_accuracy: float | None = Field(None, description="mean over probed turns: items it never saw")
    belief_by_turn: list[dict] = Field(
        default_factory=list, description="per probed turn: turn, step, accuracies, counts"
    )
    events: dict[str, list[int]] = Field(default_factory=dict, description="event counts per kind, per player")
    # Interdependence (proagent.interdependence): None/empty in records written before it existed.
    int_total: int | None = Field(None, description="interdependent action pairs (either direction)")
    int_constructive: int | None = Field(None, description="goal-reaching, non-looping interdependencies")
    int_non_constructive: int | None = None
    int_initiated: list[int] = Field(default_factory=list, description="trigger actions per player")
    int_accepted: list[int] = Field(default_factory=list, description="teammate triggers acted upon, per player")

    @model_validator(mode="before")
    @classmethod
    def _team_usage(cls, data: Any) -> Any:
        """The team's usage from each seat's ``agent_stats`` where the record does not carry it
        (records written before it did): the same sums a new record stores."""
        if not isinstance(data, dict) or "seat_usage" in data or not isinstance(data.get("agent_stats"), list):
            return data
        seats = [SeatUsage.of(stats) for stats in data["agent_stats"] if isinstance(stats, dict)]
        return {**data, **team_usage(seats)}

    @model_validator(mode="before")
    @classmethod
    def _older_layout(cls, data: Any) -> Any:
        """Records written before domains kept the world's outcomes as top-level numbers: any
        numeric field the model does not know moves into ``domain_metrics``."""
        if not isinstance(data, dict):
            return data
        legacy = {
            k: v
            for k, v in data.items()
            if k not in cls.model_fields and isinstance(v, int | float) and not isinstance(v, bool)
        }
        if not legacy:
            return data
        rest = {k: v for k, v in data.items() if k not in legacy}
        return {**rest, "domain_metrics": {**legacy, **(data.get("domain_metrics") or {})}}

    def metric(self, name: str, default: float = 0.0) -> float:
        """A domain or process metric by name."""
        return self.domain_metrics.get(name, self.process_metrics.get(name, default))


def team_usage(seats: list[SeatUsage]) -> dict[str, Any]:
    """The record fields of a team's LLM usage: each seat's, and the sums over the team."""
    return {
        "seat_usage": seats,
        "team_llm_calls": sum(s.llm_calls for s in seats),
        "team_tokens": sum(s.prompt_tokens + s.completion_tokens for s in seats),
        "team_cost_usd": sum(s.cost_usd for s in seats),
    }
