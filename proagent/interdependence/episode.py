"""Interdependence of one episode, from what a live episode or a run folder holds.

``EpisodeCollector`` is fed each step while an episode runs (play, eval) and summarizes it at the
end; ``analyze_steps`` does the same for steps read back from a trace. Both take the domain's
``InterdependenceModel``, so nothing here knows which world is played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field

from proagent.interdependence.analysis import analyze
from proagent.interdependence.model import InterdependenceModel, Scene, StepInput
from proagent.interdependence.records import EpisodeInterdependence
from proagent.interdependence.strips import GroundedTrace
from proagent.world.types import Event, State


def analyze_steps(
    model: InterdependenceModel, steps: Sequence[StepInput], scene: Scene | None = None, agents: int = 2
) -> tuple[GroundedTrace, EpisodeInterdependence]:
    """Ground the steps with the domain's model and analyze them (the trace too, for its PDDL export)."""
    trace = model.ground(steps, scene, agents)
    return trace, analyze(trace, model.strips)


@dataclass
class EpisodeCollector:
    """Collects (actions, events) per step of a running episode.

    The first state's scene is taken at once: the state object may be reused or mutated later,
    and the objects present at the start are what gives later objects their identity."""

    model: InterdependenceModel
    first: InitVar[State]
    agents: int
    scene: Scene = field(init=False)
    steps: list[StepInput] = field(init=False, default_factory=list)

    def __post_init__(self, first: State) -> None:
        self.scene = self.model.scene_of(first)

    def add(self, step: int, actions: Sequence[int], events: Sequence[Event]) -> None:
        names = tuple(self.model.action_name(int(a)) for a in actions)
        self.steps.append(StepInput(step, names, tuple(events)))

    def result(self) -> EpisodeInterdependence:
        return analyze_steps(self.model, self.steps, self.scene, self.agents)[1]


def record_fields(result: EpisodeInterdependence) -> dict:
    """The flat EpisodeRecord fields (eval tables read flat numeric fields)."""
    return {
        "int_total": result.total,
        "int_constructive": result.constructive,
        "int_non_constructive": result.non_constructive,
        "int_initiated": [a.initiated for a in result.agents],
        "int_accepted": [a.accepted for a in result.agents],
    }
