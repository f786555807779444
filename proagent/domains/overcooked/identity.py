"""Overcooked object identity: which individual onion, dish or soup an event moved.

The engine only knows "an onion on counter (2,2)"; the interdependence definitions need "this
onion". The generic ``ObjectTracker`` follows objects through hands and places (here: counters);
``KitchenTracker`` adds what only a kitchen has: ingredients waiting in a pot, the pot turning
them into one soup, a dish taking that soup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envs.overcooked.symbolic import Pos
from proagent.interdependence.identity import ObjectTracker


@dataclass
class KitchenTracker(ObjectTracker):
    """Objects held, on counters (``placed``, keyed by position), in pots."""

    in_pot: dict[Pos, list[str]] = field(default_factory=dict)  # ingredients waiting in a pot
    soup_in_pot: dict[Pos, str] = field(default_factory=dict)  # a cooking or ready soup

    def place(self, agent: int, pos: Pos, base: str, kind: str) -> str:
        return self.put_down(agent, pos, base, kind)

    def pick(self, agent: int, pos: Pos, base: str, kind: str) -> str:
        return self.pick_up(agent, pos, base, kind, f"on counter {pos}")

    def seed_counter(self, pos: Pos, base: str, kind: str) -> str:
        return self.seed_placed(pos, base, kind)

    def put_in_pot(self, agent: int, pos: Pos, base: str) -> str:
        obj = self.release(agent, base, "ingredient")
        self.in_pot.setdefault(pos, []).append(obj)
        return obj

    def cook(self, pos: Pos, ingredient_names: list[str]) -> tuple[str, list[str]]:
        """The pot's ingredients become a soup: (soup id, ingredient ids)."""
        ingredients = self.in_pot.pop(pos, [])
        for name in ingredient_names[len(ingredients) :]:
            ingredients.append(self.repair(name, "ingredient", f"untracked {name} in pot {pos}"))
        soup = self.new("soup", "soup")
        self.soup_in_pot[pos] = soup
        return soup, ingredients

    def fill(self, agent: int, pos: Pos) -> tuple[str, str]:
        """The held dish takes the pot's soup: (dish id, soup id); the agent now holds the soup."""
        dish = self.release(agent, "dish", "dish")
        soup = self.soup_in_pot.pop(pos, None) or self.repair("soup", "soup", f"untracked soup in pot {pos}")
        self.held[agent] = soup
        return dish, soup
