"""Scripted lamps partners: ``stay`` (the floor of every table) and ``walker`` (lights the nearest
dark lamp). Both follow the agent contract through `ImmediateAgent`; the walker grounds its
choice with the same controller as ProAgent, so it differs only in which skill it picks."""

from __future__ import annotations

from lamps_world.env import Action, EnvState, LineState
from lamps_world.skills import LampsSkillBook, LineController
from proagent.contract import ImmediateAgent, Observation
from proagent.domains.base import Skill


class StayPartner(ImmediateAgent):
    """Never moves, never presses."""

    name = "stay"

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        return None

    def policy(self, state: LineState, engine: EnvState) -> int:
        return int(Action.STAY)


class WalkerPartner(ImmediateAgent):
    """Walks to the nearest dark lamp (ties: the lower index) and presses it; stays when all are lit."""

    name = "walker"

    def __init__(self) -> None:
        self.seat = 0
        self.controller: LineController | None = None

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self.controller = None

    def policy(self, state: LineState, engine: EnvState) -> int:
        if self.controller is None:
            self.controller = LineController(LampsSkillBook.for_state(state), self.seat)
        return self.controller.act(state, self.choose(state))

    def choose(self, state: LineState) -> Skill:
        here = state.positions[self.seat]
        dark = [i for i, lit in enumerate(state.lit) if not lit]
        if not dark:
            return Skill("wait", 1)
        nearest = min(dark, key=lambda i: (abs(state.lamp_cells[i] - here), i))
        return Skill("press") if state.lamp_cells[nearest] == here else Skill("go_to_lamp", nearest)


PARTNERS = {"stay": StayPartner, "walker": WalkerPartner}
