"""The world interface: what every cooperative world provides to the agent core.

The required members below are all the core needs to play a world with ProAgent, scripted, RL or
human agents; what a world *may* add (drawing, partial views, interdependence and process metrics,
team sizes, rule overrides, MAEIL plan targets, an RL spec) is its `Capabilities`, each None where
it lacks it (`proagent.world.capabilities`). The world kit (`proagent.world.kit`) gives defaults
for the members that are the same in most worlds, so a world writes only what is its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from proagent.world.capabilities import Capabilities
from proagent.world.types import Controller, DomainEnv, Event, SkillBook, State, TeammateView

Agent = Any  # a `proagent.contract.Agent` (the contract sits above this module)


class Domain(Protocol):
    """A cooperative world behind one interface; the core depends on this and nothing else of it."""

    name: str
    prompts_root: Path  # prompt sets (<root>/<set>/*.j2) for this world
    knowledge_root: Path  # task.md, rules.md, layouts/<name>.toml (notes, roles, demos)
    idle_action: int  # the primitive action that does nothing (an agent still thinking plays it)
    turn_based: bool  # the world waits for every move by its rules (a card game): no --clock but turns
    useful_events: tuple[str, ...]  # event kinds that are an agent's own contribution (play's summary)
    metric_names: tuple[str, ...]  # the keys of episode_metrics (report columns, ablation metrics)
    capabilities: Capabilities  # what the world offers beyond this interface

    @property
    def action_names(self) -> tuple[str, ...]:
        """Every primitive action's name, by action id (traces, the human page's keys)."""

    def layout_names(self) -> list[str]:
        """The named layouts/scenarios, for listings and error messages."""

    def default_layout(self) -> str:
        """The layout every front end (play, eval, human, train) plays when none is named, so no
        world's commands fall back on another world's layout."""

    def owns(self, spec: str) -> bool:
        """Whether ``spec`` (a layout name or file) belongs to this world."""

    def make_env(self, spec: str, horizon: int) -> DomainEnv:
        """The environment of one layout; raises DomainInputError with what exists."""

    def default_horizon(self, spec: str) -> int:
        """Steps per episode when the front end is given none (the layout's own where it has one)."""

    def skill_book(self, first: State) -> SkillBook: ...

    def controller(self, book: SkillBook, seat: int, seed: int) -> Controller: ...

    def ground(self, state: State, seat: int, book: SkillBook, teammates: Sequence[TeammateView], score: float) -> dict:
        """The facts one agent's prompt may hold, as plain JSON-able data for the templates."""

    def knowledge_facts(self, env: DomainEnv) -> dict:
        """The env's real settings (e.g. cook time, reward) for the knowledge texts to read."""

    def memory_summary(self, facts: dict) -> str:
        """One line of an agent's memory: its situation at a decision, from its own facts."""

    def count_events(self, events: Sequence[Event], num_agents: int) -> dict[str, list[int]]:
        """Event counts per kind, per seat (the record's ``events``)."""

    def episode_metrics(self, events: Sequence[Event]) -> dict[str, float]:
        """The world's own per-episode outcomes (the record's ``domain_metrics``)."""

    def partner_names(self, env: DomainEnv | None) -> list[str]:
        """The non-LLM agents (scripted, RL, human proxies) this layout can be played with (every
        one the world ships when ``env`` is None)."""

    def make_partner(self, name: str, env: DomainEnv) -> Agent:
        """An agent by name; raises proagent.contract.UnknownAgentError listing what exists, or
        ValueError when the agent cannot play ``env`` (no checkpoint for it)."""

    def default_partner(self, env: DomainEnv) -> str:
        """The teammate `play` puts in every other seat when none is named."""


REQUIRED_MEMBERS = (
    "name",
    "prompts_root",
    "knowledge_root",
    "idle_action",
    "turn_based",
    "useful_events",
    "metric_names",
    "capabilities",
    "action_names",
    "layout_names",
    "default_layout",
    "owns",
    "make_env",
    "default_horizon",
    "skill_book",
    "controller",
    "ground",
    "knowledge_facts",
    "memory_summary",
    "count_events",
    "episode_metrics",
    "partner_names",
    "make_partner",
    "default_partner",
)  # the contract test checks every world has each; docs/domains.md describes each


__all__ = ["REQUIRED_MEMBERS", "Agent", "Domain"]
