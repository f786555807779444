"""Hand-built MA-Crafter views for the drawing tests: a small world and a four-step episode in
which agent 0 cuts a tree, gives the wood to agent 1, and the two craft a wood pickaxe together."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView

WIDTH, HEIGHT, HORIZON = 12, 9, 40
VITALS = {"health": 9, "food": 7, "drink": 5, "energy": 3}


def bag(**counts: int) -> dict[str, int]:
    return {item.name.lower(): counts.get(item.name.lower(), 0) for item in Item}


def grid() -> tuple[tuple[int, ...], ...]:
    """Grass with one cell of every other material along the top rows."""
    rows = [[int(Material.GRASS)] * WIDTH for _ in range(HEIGHT)]
    for i, material in enumerate(m for m in Material if m != Material.GRASS):
        rows[i // WIDTH][i % WIDTH] = int(material)
    rows[4][2] = int(Material.TREE)
    return tuple(tuple(r) for r in rows)


def agents(*bags: dict[str, int], asleep: int | None = None, down: int | None = None) -> tuple[AgentState, ...]:
    places = ((2, 5), (3, 5), (8, 7))
    facings = ((0, -1), (-1, 0), (1, 0))
    return tuple(
        AgentState(seat, places[seat], facings[seat], seat != down, seat == asleep, b, dict(VITALS))
        for seat, b in enumerate(bags)
    )


def view(step: int, *bags: dict[str, int], attempts: tuple[Attempt, ...] = (), **flags: Any) -> CrafterView:
    return CrafterView(step, HORIZON, False, float(step), WIDTH, HEIGHT, grid(), agents(*bags, **flags), attempts)


def episode() -> list[CrafterView]:
    """Five views: start, after a tree cut, after a share, after a two-agent craft, then one idle step."""
    cut = Attempt("collect", "tree", (2, 4), (0,), (0,), 1, "none", "ok")
    craft = Attempt("craft", "wood_pickaxe", None, (0, 1), (0, 1), 2, "none", "ok", leader=1)
    return [
        view(0, bag(), bag(), bag()),
        view(1, bag(wood=1), bag(), bag(), attempts=(cut,)),
        view(2, bag(), bag(wood=1), bag()),
        view(3, bag(wood_pickaxe=1), bag(wood_pickaxe=1), bag(), attempts=(craft,)),
        dataclasses.replace(view(4, bag(wood_pickaxe=1), bag(wood_pickaxe=1), bag(), down=2), done=True),
    ]


@dataclass(frozen=True)
class ViewWorld:
    """The two things the drawing reads of an env (its settings, the decoding of a state), over
    states that already are views."""

    settings: CrafterSettings = field(default_factory=CrafterSettings)

    def symbolic(self, state: CrafterView) -> CrafterView:
        return state
