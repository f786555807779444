"""Object identity: which individual onion, dish or soup an event moved.

The engine only knows "an onion on counter (2,2)"; the interdependence definitions need "this
onion": who gave it, who took it, whether it came back, whether it ended in a delivered soup.
``ObjectTracker`` names each object when it appears (onion1, dish2, soup1) and follows it through
hands, counters and pots as events move it. Where the record of what happened is incomplete
(an object present before the trace starts, a run folder without the initial state), it creates
the object on first sight and counts a repair instead of failing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

Pos = tuple[int, int]


@dataclass
class ObjectTracker:
    """Individual objects and where each one is: held by an agent, on a counter, in a pot."""

    types: dict[str, str] = field(default_factory=dict)  # id -> type (ingredient, dish, soup)
    held: dict[int, str] = field(default_factory=dict)  # agent -> id
    on_counter: dict[Pos, str] = field(default_factory=dict)
    in_pot: dict[Pos, list[str]] = field(default_factory=dict)  # ingredients waiting in a pot
    soup_in_pot: dict[Pos, str] = field(default_factory=dict)  # a cooking or ready soup
    repairs: list[str] = field(default_factory=list)
    _counts: Counter = field(default_factory=Counter)

    def new(self, base: str, kind: str) -> str:
        """A fresh id ``<base><n>`` (onion1, onion2, dish1...)."""
        self._counts[base] += 1
        name = f"{base}{self._counts[base]}"
        self.types[name] = kind
        return name

    def _repair(self, base: str, kind: str, why: str) -> str:
        self.repairs.append(why)
        return self.new(base, kind)

    # ---- moves; each returns the id of the object moved ----

    def take_new(self, agent: int, base: str, kind: str) -> str:
        """An object appears in an agent's hand (from a dispenser)."""
        obj = self.new(base, kind)
        self.held[agent] = obj
        return obj

    def release(self, agent: int, base: str, kind: str) -> str:
        """The agent's held object leaves its hand (the id, repaired if the hand was not tracked)."""
        obj = self.held.pop(agent, None)
        if obj is None or self.types.get(obj) != kind:
            obj = self._repair(base, kind, f"agent {agent} held an untracked {base}")
        return obj

    def place(self, agent: int, pos: Pos, base: str, kind: str) -> str:
        obj = self.release(agent, base, kind)
        self.on_counter[pos] = obj
        return obj

    def pick(self, agent: int, pos: Pos, base: str, kind: str) -> str:
        obj = self.on_counter.pop(pos, None)
        if obj is None or self.types.get(obj) != kind:
            obj = self._repair(base, kind, f"untracked {base} on counter {pos}")
        self.held[agent] = obj
        return obj

    def put_in_pot(self, agent: int, pos: Pos, base: str) -> str:
        obj = self.release(agent, base, "ingredient")
        self.in_pot.setdefault(pos, []).append(obj)
        return obj

    def cook(self, pos: Pos, ingredient_names: list[str]) -> tuple[str, list[str]]:
        """The pot's ingredients become a soup: (soup id, ingredient ids)."""
        ingredients = self.in_pot.pop(pos, [])
        for name in ingredient_names[len(ingredients) :]:
            ingredients.append(self._repair(name, "ingredient", f"untracked {name} in pot {pos}"))
        soup = self.new("soup", "soup")
        self.soup_in_pot[pos] = soup
        return soup, ingredients

    def fill(self, agent: int, pos: Pos) -> tuple[str, str]:
        """The held dish takes the pot's soup: (dish id, soup id); the agent now holds the soup."""
        dish = self.release(agent, "dish", "dish")
        soup = self.soup_in_pot.pop(pos, None) or self._repair("soup", "soup", f"untracked soup in pot {pos}")
        self.held[agent] = soup
        return dish, soup

    def seed_held(self, agent: int, base: str, kind: str) -> str:
        obj = self.new(base, kind)
        self.held[agent] = obj
        return obj

    def seed_counter(self, pos: Pos, base: str, kind: str) -> str:
        obj = self.new(base, kind)
        self.on_counter[pos] = obj
        return obj
