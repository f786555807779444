"""Hand-built scenarios: event streams written step by step, analyzed without the engine.

``Script`` appends one event per call at the next step (the other agent moves meanwhile), so a
scenario reads like the story it tells: who fetched which onion, who put it where, who took it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envs import Event, EventKind, Item
from proagent.domains.overcooked.interdependence import interdependence_model
from proagent.interdependence.episode import analyze_steps
from proagent.interdependence.model import StepInput

ONION = Item("ingredient", (0,))
DISH = Item("dish")
SOUP = Item("soup", (0, 0, 0))


@dataclass
class Script:
    layout: str
    events: list[Event] = field(default_factory=list)

    def _add(self, agent: int, kind: EventKind, pos: tuple[int, int], item: Item | None, correct: bool | None = None) -> Script:
        self.events.append(Event(len(self.events), agent, kind, pos, item, correct))
        return self

    def fetch_onion(self, agent: int, pos: tuple[int, int]) -> Script:
        return self._add(agent, EventKind.PICKUP_INGREDIENT, pos, ONION)

    def fetch_dish(self, agent: int, pos: tuple[int, int]) -> Script:
        return self._add(agent, EventKind.PICKUP_DISH, pos, DISH)

    def place(self, agent: int, pos: tuple[int, int], item: Item = ONION) -> Script:
        return self._add(agent, EventKind.PLACE_ON_COUNTER, pos, item)

    def take(self, agent: int, pos: tuple[int, int], item: Item = ONION) -> Script:
        return self._add(agent, EventKind.PICKUP_FROM_COUNTER, pos, item)

    def put_in_pot(self, agent: int, pot: tuple[int, int], starts: bool = False) -> Script:
        self._add(agent, EventKind.PUT_IN_POT, pot, ONION)
        if starts:  # auto-cook: the last onion starts the pot in the same step
            self.events.append(Event(len(self.events) - 1, agent, EventKind.START_COOKING, pot, SOUP))
        return self

    def fill(self, agent: int, pot: tuple[int, int]) -> Script:
        return self._add(agent, EventKind.FILL_DISH, pot, SOUP)

    def deliver(self, agent: int, pos: tuple[int, int], correct: bool = True) -> Script:
        return self._add(agent, EventKind.DELIVER, pos, SOUP, correct)

    def steps(self) -> list[StepInput]:
        by_step: dict[int, list[Event]] = {}
        for e in self.events:
            by_step.setdefault(e.step, []).append(e)
        return [StepInput(t, ("interact", "interact"), tuple(sorted(by_step.get(t, []), key=lambda e: e.agent))) for t in range(len(self.events))]

    def analyze(self):
        return analyze_steps(interdependence_model(self.layout), self.steps())
