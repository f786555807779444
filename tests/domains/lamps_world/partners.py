"""Scripted lamps partners: ``stay`` and ``walker`` (walks to the nearest dark lamp and presses it,
grounded by ProAgent's own controller, so it differs only in which skill it picks)."""

from __future__ import annotations

from lamps_world.env import Action, EnvState, LineState
from lamps_world.skills import LineController
from proagent.contract import ImmediateAgent
from proagent.world.types import Skill


class StayPartner(ImmediateAgent):
    name = "stay"

    def policy(self, state: LineState, engine: EnvState) -> int:
        return int(Action.STAY)


class WalkerPartner(ImmediateAgent):
    name = "walker"

    def policy(self, state: LineState, engine: EnvState) -> int:
        here = state.positions[self.seat]
        dark = [i for i, lit in enumerate(state.lit) if not lit]
        nearest = min(dark, key=lambda i: (abs(state.lamp_cells[i] - here), i)) if dark else None
        skill = Skill("wait", 1) if nearest is None else Skill("press") if state.lamp_cells[nearest] == here else Skill("go_to_lamp", nearest)
        return LineController(None, self.seat).act(state, skill)  # type: ignore[arg-type]


PARTNERS = {"stay": StayPartner, "walker": WalkerPartner}
