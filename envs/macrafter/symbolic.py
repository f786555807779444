"""The typed, JAX-free view of an MA-Crafter state: what skills, grounding, metrics and drawing read.

``decode(settings, state)`` turns the env's arrays into a `CrafterView`. The view holds the whole
world (the env's truth); what one agent may know is cut from it by the world's perception (its
local ``view_width x view_height`` window, its own bag, what teammates said). Cows are objects in
the state; the view draws them into its grid as ``Material.COW`` (they stand on walkable ground,
which is all an agent needs to know of the cell) and lists them in ``cows``. The last step's
collection attempts ride in the view (``attempts``: every resource within reach of an agent that
did ``do``), so events and constraint metrics are derived from (view, actions, next view) alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from envs.macrafter.rules import MOVES, PICKAXES, SHARE_GOODS, VECTORS, Achievement, Action, Item, Material, Vital
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.state import RESOURCES, RESULTS, CrafterState, reach_offsets

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
    achievements: dict[str, int] = field(default_factory=dict)  # EmCoop's counters, non-zero ones

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
    """One cooperative act tried in the last step: a collection of one resource cell.

    ``participants`` did ``do`` within reach of the cell; ``capable`` are those of them holding the
    resource's tool; ``outcome`` is ``ok`` (collected), ``too_few`` (fewer participants than the
    quorum) or ``no_tool`` (enough participants, too few of them with the tool). ``kind`` and
    ``leader`` stay for records of the paper's crafting rule (a craft is one agent's act here).
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
    last_actions: tuple[int, ...] = ()  # last step, per seat: the primitive action it took
    cows: tuple[Pos, ...] = ()  # the live cows (also drawn into ``grid`` as Material.COW)
    score_units: dict[str, int] = field(default_factory=dict)  # scored units per item (EmCoop's resource_counts)
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

    def cells_of(self, material: Material) -> list[Pos]:
        return [(x, y) for y, row in enumerate(self.grid) for x, m in enumerate(row) if m == material]

    def window(self, seat: int, width: int, height: int) -> tuple[Pos, Pos]:
        """The top-left and bottom-right cells (inclusive, clipped to the world) of a seat's view."""
        x, y = self.agents[seat].position
        hw, hh = width // 2, height // 2
        return (max(0, x - hw), max(0, y - hh)), (min(self.width - 1, x + hw), min(self.height - 1, y + hh))

    def to_record(self) -> dict:
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
                    "achievements": dict(a.achievements),
                }
                for a in self.agents
            ],
            "cows": [list(c) for c in self.cows],
            "score_units": dict(self.score_units),
            "attempts": [a.to_record() for a in self.attempts],
            "shares": [list(s) for s in self.shares],
            "results": list(self.results),
        }


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
            alive=bool(not s["removed"][i] and s["vitals"][i, Vital.HEALTH] > 0),
            sleeping=bool(s["sleeping"][i]),
            inventory={item.name.lower(): int(s["inventory"][i, item]) for item in Item},
            vitals={vital.name.lower(): int(s["vitals"][i, vital]) for vital in Vital},
            achievements={a.name.lower(): int(s["achievements"][i, a]) for a in Achievement if s["achievements"][i, a]},
        )
        for i in range(n)
    )
    shares = tuple(
        (i, int(s["share_to"][i]), SHARE_GOODS[int(s["share_good"][i])], int(s["share_qty"][i]))
        for i in range(n)
        if s["share_to"][i] >= 0
    )
    cows = tuple((int(x), int(y)) for (x, y), live in zip(s["cow_pos"], s["cow_alive"], strict=True) if live)
    grid = s["grid"].copy()
    for x, y in cows:
        grid[y, x] = Material.COW
    return CrafterView(
        step=int(s["step"]),
        horizon=settings.horizon,
        done=bool(s["done"]),
        score=float(s["score"]),
        width=settings.width,
        height=settings.height,
        grid=tuple(tuple(int(m) for m in row) for row in grid),
        agents=agents,
        attempts=_attempts(settings, s, n),
        shares=shares,
        results=tuple(RESULTS[int(r)] for r in s["result"][:n]),
        last_actions=tuple(int(a) for a in s["last_action"][:n]),
        settings=settings,
        cows=cows,
        score_units={
            item: int(k) for item, k in zip(("wood", "stone", "coal", "iron", "diamond"), s["score_units"], strict=True)
        },
    )


def _attempts(settings: CrafterSettings, s: dict[str, np.ndarray], n: int) -> tuple[Attempt, ...]:
    """The last step's collection targets, one per cell, in the order the lowest seat reached them:
    participants are the seats that did ``do`` within reach, capable those holding the tool then."""
    offsets = reach_offsets(settings.collect_distance)
    did = [i for i in range(n) if int(s["last_action"][i]) == Action.DO]
    tools = {item.name.lower(): slot for slot, item in enumerate(PICKAXES)}  # state.do_tools columns
    seen: dict[Pos, Attempt] = {}
    for i in did:
        for k, (dx, dy) in enumerate(offsets):
            code = int(s["tgt_res"][i, k])
            cell = (int(s["do_pos"][i, 0]) + int(dx), int(s["do_pos"][i, 1]) + int(dy))
            if code < 0 or cell in seen:
                continue
            name = RESOURCES[code]
            rule = settings.resources[name]
            near = tuple(
                j
                for j in did
                if abs(int(s["do_pos"][j, 0]) - cell[0]) + abs(int(s["do_pos"][j, 1]) - cell[1])
                <= settings.collect_distance
            )
            capable = tuple(j for j in near if rule.tool == "none" or s["do_tools"][j, tools[rule.tool]])
            outcome = "ok" if len(capable) >= rule.quorum else "too_few" if len(near) < rule.quorum else "no_tool"
            seen[cell] = Attempt("collect", name, cell, near, capable, rule.quorum, rule.tool, outcome)
    return tuple(seen.values())


__all__ = ["AgentState", "Attempt", "CrafterView", "Outcome", "Pos", "decode"]
