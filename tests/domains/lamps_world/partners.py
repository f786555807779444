"""Scripted lamps partners: ``stay``, and ``walker`` (to the nearest dark lamp, then press, grounded by
ProAgent's own controller, so it differs from ProAgent only in which skill it picks)."""

from __future__ import annotations

from lamps_world.env import Action, LineState
from lamps_world.skills import LineController
from proagent.contract import PolicyAgent
from proagent.world.types import Skill, wait_skill


def walk(state: LineState, seat: int) -> int:
    here, dark = state.positions[seat], [i for i, lit in enumerate(state.lit) if not lit]
    lamp = min(dark, key=lambda i: (abs(state.lamp_cells[i] - here), i)) if dark else None
    skill = wait_skill() if lamp is None else Skill("press") if state.lamp_cells[lamp] == here else Skill("go_to_lamp", lamp)
    return LineController(None, seat).act(state, skill)


PARTNERS = {"stay": lambda: PolicyAgent("stay", lambda state, seat: Action.STAY), "walker": lambda: PolicyAgent("walker", walk)}
