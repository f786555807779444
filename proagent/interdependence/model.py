"""The seam between the shared analysis and one domain's STRIPS mapping (the paper's App. C: a
mapping module per domain, one analysis module for all).

The analysis reads only a ``GroundedTrace`` over a declared ``strips.Domain``. What turns an
episode into that trace is the domain's business: it knows its events, its action names, its
fixed places and which objects exist when an episode starts. A domain implements
``InterdependenceModel`` for one layout (or scenario) and the generic code here (``episode``,
``folder``) drives it the same way for a live episode and for a run folder read back later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from proagent.interdependence.strips import Domain, GroundedTrace
from proagent.world.types import Event, State

Scene = Any  # a domain's own description of the objects present when a trace starts (opaque here)
SkillOfEvent = Callable[[Event], object | None]  # the skill an event completes (its str() is compared), or None


@dataclass(frozen=True)
class StepInput:
    """One environment step: each agent's primitive action (by name) and the events it caused.

    Names rather than action ids, because that is what a run folder's trace keeps: the same input
    then serves a live episode and `proagent analyze` afterwards."""

    step: int
    actions: tuple[str, ...]
    events: tuple[Event, ...] = ()


class InterdependenceModel(Protocol):
    """One layout of a domain, as the interdependence analysis needs it."""

    @property
    def strips(self) -> Domain:
        """The declared STRIPS domain the grounded traces use (predicates, roles, operators, goals)."""

    def action_name(self, action: int) -> str:
        """A primitive action's name, as the trace writes it (an agent without events 'moves' by it)."""

    def scene_of(self, first: State) -> Scene:
        """The objects present in a live episode's first state (so objects seen later keep their identity)."""

    def scene_from_trace(self, line: Mapping[str, Any]) -> Scene | None:
        """The scene a run folder's first trace line records, or None (the layout's empty start)."""

    def event_from_record(self, record: Mapping[str, Any]) -> Event:
        """An event as the trace stores it (``Event.to_record()``) back to the domain's event."""

    def ground(self, steps: Iterable[StepInput], scene: Scene | None, agents: int) -> GroundedTrace:
        """The grounded trace of one episode of ``agents`` agents starting from ``scene``."""

    def skill_of_event(self, event: Event) -> object | None:
        """The skill ``event`` completes in this layout (its str() is compared with a predicted
        intention), or None: the layout's own skill names (a V2 kitchen's ``put_in_pot()``)."""
