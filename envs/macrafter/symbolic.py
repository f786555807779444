"""The typed, JAX-free view of an MA-Crafter state: what skills, grounding, metrics and drawing read.

``decode(settings, state)`` turns the env's arrays into a `CrafterView`. The view holds the whole
world (the env's truth); what one agent may know is cut from it by the world's perception (its
local ``view_width x view_height`` window, its own bag, what teammates said). The last step's
collection and crafting attempts ride in the view (``attempts``), as CUBE's push records do, so
events and constraint metrics are derived from (view, actions, next view) alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from envs.macrafter.rules import CRAFTS, MOVES, VECTORS, Item, Material, Vital
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import CREATURES, RESOURCES, RESULTS, CrafterState, creature_kinds

Pos = tuple[int, int]  # (x, y), y grows downwards
Outcome = Literal["ok", "too_few", "no_tool", "no_station", "missing_items", "blocked"]


@dataclass(frozen=True, slots=True)
class AgentState:
    """One agent as the env knows it. ``inventory`` maps every `Item` name (lower case) to a count."""

    seat: int
    position: Pos
    facing: Pos  # (dx, dy) of the way it faces
    alive: bool
    sleeping: bool
    inventory: dict[str, int]
    vitals: dict[str, int]  # health, food, drink, energy

    def count(self, item: Item | str) -> int:
        name = item.name.lower() if isinstance(item, Item) else item
        return self.inventory.get(name, 0)

    def vital(self, vital: Vital) -> int:
        return self.vitals[vital.name.lower()]

    @property
    def faced_cell(self) -> Pos:
        return (self.position[0] + self.facing[0], self.position[1] + self.facing[1])

    def tool_tier(self) -> int:
        """The best pickaxe held: 0 none, 1 wood, 2 stone, 3 iron."""
        for tier, name in ((3, "iron_pickaxe"), (2, "stone_pickaxe"), (1, "wood_pickaxe")):
            if self.inventory.get(name, 0) > 0:
                return tier
        return 0


@dataclass(frozen=True, slots=True)
class Attempt:
    """One cooperative act tried in the last step: a collection on one cell, or a craft of one item.

    ``participants`` acted on it together (DO on the cell within reach, or the same MAKE_* near the
    station); ``capable`` are those of them holding the needed tool; ``leader`` is whose bag a craft
    consumed (None when nothing was consumed). ``outcome`` is ``ok`` or the first unmet rule.
    """

    kind: Literal["collect", "craft"]
    target: str  # the resource (tree, stone, coal, iron, diamond) or the crafted item
    cell: Pos | None  # the resource's cell; for a craft the station the leader used (None if none)
    participants: tuple[int, ...]
    capable: tuple[int, ...]
    required: int  # the quorum
    tool: str  # the tool each participant needs ("none" for crafts and trees)
    outcome: Outcome
    leader: int | None = None

    def to_record(self) -> dict:
        return {
            "kind": self.kind,
            "target": self.target,
            "cell": None if self.cell is None else list(self.cell),
            "participants": list(self.participants),
            "capable": list(self.capable),
            "required": self.required,
            "tool": self.tool,
            "outcome": self.outcome,
            "leader": self.leader,
        }


@dataclass(frozen=True, slots=True)
class Creature:
    """One live hostile creature (only with ``hostile_creatures`` on); ``slot`` is its state slot."""

    slot: int
    kind: str  # zombie | skeleton
    position: Pos
    health: int

    def to_record(self) -> dict:
        return {"slot": self.slot, "kind": self.kind, "position": list(self.position), "health": self.health}


@dataclass(frozen=True)
class CrafterView:
    """The whole world at one step. ``grid[y][x]`` is a `Material` value."""

    step: int
    horizon: int
    done: bool
    score: float
    width: int
    height: int
    grid: tuple[tuple[int, ...], ...]
    agents: tuple[AgentState, ...]
    attempts: tuple[Attempt, ...] = ()  # what the last step tried (empty at reset)
    shares: tuple[tuple[int, int, str, int], ...] = ()  # last step: (giver, receiver, item, qty) done
    results: tuple[str, ...] = ()  # last step, per seat: what its own action did (state.RESULTS names)
    creatures: tuple[Creature, ...] = ()  # the live hostile creatures (none with them off)
    damage: tuple[int, ...] = ()  # last step, per seat: health lost to creatures (empty with them off)
    struck: tuple[str | None, ...] = ()  # last step, per seat: the creature kind its DO hit (or None)
    names: tuple[str, ...] = field(default=tuple(m.name.lower() for m in Material), repr=False)
    # The rules the world runs under (``decode`` passes the env's): the agent side's skills read
    # quorums, tools, recipes and the view size from the state they are given.
    settings: CrafterSettings = field(default_factory=CrafterSettings, repr=False, compare=False)

    def material(self, cell: Pos) -> Material | None:
        x, y = cell
        if 0 <= x < self.width and 0 <= y < self.height:
            return Material(self.grid[y][x])
        return None

    def agent_at(self, cell: Pos) -> int | None:
        for agent in self.agents:
            if agent.alive and agent.position == cell:
                return agent.seat
        return None

    def creature_at(self, cell: Pos) -> Creature | None:
        return next((c for c in self.creatures if c.position == cell), None)

    def cells_of(self, material: Material) -> list[Pos]:
        return [(x, y) for y, row in enumerate(self.grid) for x, m in enumerate(row) if m == material]

    def window(self, seat: int, width: int, height: int) -> tuple[Pos, Pos]:
        """The top-left and bottom-right cells (inclusive, clipped to the world) of a seat's view."""
        x, y = self.agents[seat].position
        hw, hh = width // 2, height // 2
        return (max(0, x - hw), max(0, y - hh)), (min(self.width - 1, x + hw), min(self.height - 1, y + hh))

    def to_record(self) -> dict:
        record = self._record()
        if self.settings.hostile_creatures:  # a creature-free record keeps its exact old form
            record["creatures"] = [c.to_record() for c in self.creatures]
            record["damage"] = list(self.damage)
            record["struck"] = list(self.struck)
        return record

    def _record(self) -> dict:
        return {
            "step": self.step,
            "horizon": self.horizon,
            "done": self.done,
            "score": self.score,
            "width": self.width,
            "height": self.height,
            "grid": [list(row) for row in self.grid],
            "agents": [
                {
                    "seat": a.seat,
                    "position": list(a.position),
                    "facing": list(a.facing),
                    "alive": a.alive,
                    "sleeping": a.sleeping,
                    "inventory": dict(a.inventory),
                    "vitals": dict(a.vitals),
                }
                for a in self.agents
            ],
            "attempts": [a.to_record() for a in self.attempts],
            "shares": [list(s) for s in self.shares],
            "results": list(self.results),
        }


_CRAFT_NAMES: tuple[str, ...] = tuple(item.name.lower() for item in CRAFTS.values())


def decode(settings: CrafterSettings, state: CrafterState) -> CrafterView:
    """Typed view of one unbatched state (JAX or NumPy arrays); ``settings`` gives the team size,
    the horizon and the quorums the attempts were judged by."""
    s = {name: np.asarray(value) for name, value in zip(state._fields, state, strict=True)}
    n = settings.num_agents
    agents = tuple(
        AgentState(
            seat=i,
            position=(int(s["pos"][i, 0]), int(s["pos"][i, 1])),
            facing=VECTORS[MOVES[int(s["facing"][i])]],
            alive=bool(s["alive"][i]),
            sleeping=bool(s["sleeping"][i]),
            inventory={item.name.lower(): int(s["inventory"][i, item]) for item in Item},
            vitals={vital.name.lower(): int(s["vitals"][i, vital]) for vital in Vital},
        )
        for i in range(n)
    )
    shares = tuple(
        (i, int(s["share_to"][i]), Item(int(s["share_item"][i])).name.lower(), 1)
        for i in range(n)
        if s["share_to"][i] >= 0
    )
    return CrafterView(
        step=int(s["step"]),
        horizon=settings.horizon,
        done=bool(s["done"]),
        score=float(s["score"]),
        width=settings.width,
        height=settings.height,
        grid=tuple(tuple(int(m) for m in row) for row in s["grid"]),
        agents=agents,
        attempts=_attempts(settings, s, n),
        shares=shares,
        results=tuple(RESULTS[int(r)] for r in s["result"][:n]),
        settings=settings,
        **_creatures(settings, s, n),
    )


def _creatures(settings: CrafterSettings, s: dict[str, np.ndarray], n: int) -> dict:
    """The view's creature fields (left at their empty defaults with hostile creatures off)."""
    if not settings.hostile_creatures:
        return {}
    kinds = creature_kinds(settings)
    live = np.flatnonzero(s["creature_alive"])
    return {
        "creatures": tuple(
            Creature(
                int(k),
                CREATURES[int(kinds[k])],
                (int(s["creature_pos"][k, 0]), int(s["creature_pos"][k, 1])),
                int(s["creature_health"][k]),
            )
            for k in live
        ),
        "damage": tuple(int(d) for d in s["damage"][:n]),
        "struck": tuple(CREATURES[int(h)] if h >= 0 else None for h in s["hit_kind"][:n]),
    }


def _attempts(settings: CrafterSettings, s: dict[str, np.ndarray], n: int) -> tuple[Attempt, ...]:
    """Group the seats' records into attempts: collections by cell, then crafts by item (those in
    reach of the stations, then those out of reach), each group in the order of its lowest seat."""
    groups: dict[tuple, list[int]] = {}
    for i in range(n):
        kind = int(s["att_kind"][i])
        if kind == 1:
            groups.setdefault(("collect", int(s["att_cell"][i, 0]), int(s["att_cell"][i, 1])), []).append(i)
    for i in range(n):
        if int(s["att_kind"][i]) == 2:
            groups.setdefault(("craft", int(s["att_target"][i]), bool(s["att_member"][i])), []).append(i)
    attempts = []
    for key, seats in groups.items():
        capable = tuple(i for i in seats if s["att_capable"][i])
        if key[0] == "collect":
            name = RESOURCES[int(s["att_target"][seats[0]])]
            rule = settings.resources[name]
            outcome = "ok" if len(capable) >= rule.quorum else "too_few" if len(seats) < rule.quorum else "no_tool"
            attempts.append(Attempt("collect", name, key[1:], tuple(seats), capable, rule.quorum, rule.tool, outcome))
            continue
        name = _CRAFT_NAMES[key[1]]
        recipe = settings.recipes[name]
        outcome = RESULTS[int(s["result"][seats[0]])] if key[2] else "no_station"
        leader = int(s["att_leader"][seats[0]])
        cell = (int(s["att_cell"][seats[0], 0]), int(s["att_cell"][seats[0], 1]))
        attempts.append(
            Attempt(
                "craft",
                name,
                cell if cell[0] >= 0 else None,
                tuple(seats),
                capable,
                recipe.quorum,
                "none",
                outcome,
                leader if leader >= 0 else None,
            )
        )
    return tuple(attempts)


__all__ = ["AgentState", "Attempt", "CrafterView", "Creature", "Outcome", "Pos", "decode"]
