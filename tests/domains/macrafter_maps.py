"""Hand-built MA-Crafter views for the agent-side tests: a map drawn as text rows.

Symbols are the grounding's (``.`` grass, ``T`` tree, ``S`` stone, ``I`` iron, ``B`` table, ...);
digits are agents (their seat), standing on grass.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from envs.macrafter import CrafterEnv, CrafterState, Scenario
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


_ENVS: dict[str, CrafterEnv] = {}  # one compiled env per rules and team size, shared by the maps of that shape


def _env(settings: CrafterSettings, scenario: Scenario) -> CrafterEnv:
    return _ENVS.setdefault(settings.model_dump_json(), CrafterEnv(scenario))


def small_env(
    rows: list[str],
    bags: dict[int, dict[str, int]] | None = None,
    horizon: int = 100,
    rules: dict | None = None,
) -> tuple[CrafterEnv, CrafterState]:
    """A real env on a hand-drawn map (at least 9 x 9) and its first state, with the given bags
    (``rules``: further settings, e.g. hostile creatures)."""
    start = crafter_view(rows, bags)
    grid = tuple(tuple(int(_MATERIAL[c if not c.isdigit() else "."]) for c in row) for row in rows)
    settings = CrafterSettings(
        num_agents=len(start.agents), width=len(rows[0]), height=len(rows), horizon=horizon, **(rules or {})
    )
    scenario = Scenario("hand", None, settings, None, "iron", tuple(a.position for a in start.agents), grid)
    env = _env(settings, scenario)
    state = env.state_for(scenario)
    inventory = np.zeros_like(np.asarray(state.inventory))
    for seat, bag in (bags or {}).items():
        for name, count in bag.items():
            inventory[seat, Item[name.upper()]] = count
    return env, state._replace(inventory=jnp.asarray(inventory))


__all__ = ["FULL", "Material", "crafter_view", "small_env"]
