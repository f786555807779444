"""Object identity: which individual object an event moved.

An engine's events say "an object of this kind went there"; the interdependence definitions need
"this object": who gave it, who took it, whether it came back, whether it ended in a goal.
``ObjectTracker`` names each object when it appears (``<base><n>``) and follows it through hands
and places as a domain's mapping moves it; a domain with richer containers (things cooked,
assembled, merged) extends it. Where the record of what happened is incomplete (an object present
before the trace starts, a run folder without the initial state), it creates the object on first
sight and counts a repair instead of failing: an analysis of a partial trace beats none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field


@dataclass
class ObjectTracker:
    """Individual objects and where each one is: held by an agent, or lying at a place."""

    types: dict[str, str] = field(default_factory=dict)  # id -> type
    held: dict[int, str] = field(default_factory=dict)  # agent -> id
    placed: dict[Hashable, str] = field(default_factory=dict)  # place -> the id lying there
    repairs: list[str] = field(default_factory=list)
    _counts: Counter = field(default_factory=Counter)

    def new(self, base: str, kind: str) -> str:
        """A fresh id ``<base><n>`` (the n-th object with that base name)."""
        self._counts[base] += 1
        name = f"{base}{self._counts[base]}"
        self.types[name] = kind
        return name

    def repair(self, base: str, kind: str, why: str) -> str:
        """An object nobody saw appear: created now, and noted (``why``) as a repair."""
        self.repairs.append(why)
        return self.new(base, kind)

    # ---- moves; each returns the id of the object moved ----

    def take_new(self, agent: int, base: str, kind: str) -> str:
        """An object appears in an agent's hand (from a source such as a dispenser)."""
        obj = self.new(base, kind)
        self.held[agent] = obj
        return obj

    def release(self, agent: int, base: str, kind: str) -> str:
        """The agent's held object leaves its hand (the id, repaired if the hand was not tracked)."""
        obj = self.held.pop(agent, None)
        if obj is None or self.types.get(obj) != kind:
            obj = self.repair(base, kind, f"agent {agent} held an untracked {base}")
        return obj

    def put_down(self, agent: int, place: Hashable, base: str, kind: str) -> str:
        obj = self.release(agent, base, kind)
        self.placed[place] = obj
        return obj

    def pick_up(self, agent: int, place: Hashable, base: str, kind: str, where: str) -> str:
        """The object lying at ``place`` goes to the agent's hand; ``where`` words the place for a repair."""
        obj = self.placed.pop(place, None)
        if obj is None or self.types.get(obj) != kind:
            obj = self.repair(base, kind, f"untracked {base} {where}")
        self.held[agent] = obj
        return obj

    def seed_held(self, agent: int, base: str, kind: str) -> str:
        """An object already in an agent's hand when the trace starts."""
        obj = self.new(base, kind)
        self.held[agent] = obj
        return obj

    def seed_placed(self, place: Hashable, base: str, kind: str) -> str:
        """An object already lying at ``place`` when the trace starts."""
        obj = self.new(base, kind)
        self.placed[place] = obj
        return obj
