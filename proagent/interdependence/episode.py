"""Interdependence of one episode, from what a live episode or a run folder holds.

``EpisodeCollector`` is fed each step while an episode runs (play, eval) and summarizes it at the
end; ``analyze_steps`` does the same for steps read back from a trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from envs import Action, Event, KitchenMap, KitchenState
from proagent.interdependence.analysis import analyze
from proagent.interdependence.overcooked_domain import (
    Scene,
    StepInput,
    ground_episode,
    overcooked_domain,
    scene_from_kitchen,
)
from proagent.interdependence.records import EpisodeInterdependence
from proagent.interdependence.strips import GroundedTrace


def analyze_steps(
    steps: Sequence[StepInput], kmap: KitchenMap, scene: Scene | None = None, agents: int = 2
) -> tuple[GroundedTrace, EpisodeInterdependence]:
    """Ground the steps with the Overcooked domain and analyze them."""
    domain = overcooked_domain()
    trace = ground_episode(steps, kmap, scene, domain, agents)
    return trace, analyze(trace, domain)


@dataclass
class EpisodeCollector:
    """Collects (actions, events) per step of a running episode."""

    kmap: KitchenMap
    scene: Scene
    agents: int = 2
    steps: list[StepInput] = field(default_factory=list)

    @classmethod
    def start(cls, kitchen: KitchenState) -> EpisodeCollector:
        return cls(kitchen.map, scene_from_kitchen(kitchen), len(kitchen.players))

    def add(self, step: int, actions: Sequence[int], events: Sequence[Event]) -> None:
        names = tuple(Action(int(a)).name.lower() for a in actions)
        self.steps.append(StepInput(step, names, tuple(events)))

    def result(self) -> EpisodeInterdependence:
        return analyze_steps(self.steps, self.kmap, self.scene, self.agents)[1]


def record_fields(result: EpisodeInterdependence) -> dict:
    """The flat EpisodeRecord fields (eval tables read flat numeric fields)."""
    return {
        "int_total": result.total,
        "int_constructive": result.constructive,
        "int_non_constructive": result.non_constructive,
        "int_initiated": [a.initiated for a in result.agents],
        "int_accepted": [a.accepted for a in result.agents],
    }
