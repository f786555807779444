"""Hand-built MA-Crafter views for the agent-side tests: a map drawn as text rows.

Symbols are the grounding's (``.`` grass, ``T`` tree, ``S`` stone, ``I`` iron, ``B`` table, ...);
digits are agents (their seat), standing on grass.
"""

from __future__ import annotations

from envs.macrafter.rules import Item, Material
from envs.macrafter.settings import CrafterSettings
from envs.macrafter.symbolic import AgentState, Attempt, CrafterView
from proagent.domains.macrafter.grounding import SYMBOLS

_MATERIAL = {symbol: material for material, symbol in SYMBOLS.items()}
FULL = {"health": 9, "food": 9, "drink": 9, "energy": 9}


def crafter_view(
    rows: list[str],
    bags: dict[int, dict[str, int]] | None = None,
    facing: dict[int, tuple[int, int]] | None = None,
    step: int = 0,
    attempts: tuple[Attempt, ...] = (),
    settings: CrafterSettings | None = None,
    vitals: dict[int, dict[str, int]] | None = None,
) -> CrafterView:
    grid, found = [], {}
    for y, row in enumerate(rows):
        cells = []
        for x, symbol in enumerate(row):
            if symbol.isdigit():
                found[int(symbol)] = (x, y)
                symbol = "."
            cells.append(int(_MATERIAL[symbol]))
        grid.append(tuple(cells))
    agents = tuple(
        AgentState(
            seat=seat,
            position=found[seat],
            facing=(facing or {}).get(seat, (0, 1)),
            alive=True,
            sleeping=False,
            inventory={i.name.lower(): (bags or {}).get(seat, {}).get(i.name.lower(), 0) for i in Item},
            vitals=dict((vitals or {}).get(seat, FULL)),
        )
        for seat in sorted(found)
    )
    base = settings or CrafterSettings(num_agents=len(agents), width=max(9, len(rows[0])), height=max(9, len(rows)))
    return CrafterView(
        step=step,
        horizon=base.horizon,
        done=False,
        score=0.0,
        width=len(rows[0]),
        height=len(rows),
        grid=tuple(grid),
        agents=agents,
        attempts=attempts,
        settings=base,
    )


__all__ = ["FULL", "Material", "crafter_view"]
