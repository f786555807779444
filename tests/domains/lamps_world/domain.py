"""The lamps world on the world kit: nothing in `proagent/` knows it (``--domain lamps_world:DOMAIN``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lamps_world.env import EVENT_KINDS, LAYOUTS, Action, LampEvent, LampsEnv, LineState, render_line
from lamps_world.partners import PARTNERS
from lamps_world.skills import LineController, skill_book
from proagent.contract import Agent, UnknownAgentError
from proagent.world.capabilities import Capabilities
from proagent.world.kit.base import WorldBase
from proagent.world.kit.pictures import GridCanvas, grid_rendering, seat_colour
from proagent.world.types import TeammateView


def page_facts(env: LampsEnv, first: LineState) -> dict:
    return {"length": env.layout.length, "lamp_cells": list(env.layout.lamp_cells), "duration": env.layout.duration}


def frame(state: LineState) -> np.ndarray:
    """Lamps in the top row (yellow lit, grey dark), agents below."""
    canvas = GridCanvas(state.length, 2, 12)
    for lamp, cell in enumerate(state.lamp_cells):
        canvas.fill(cell, 0, (240, 200, 40) if state.lit[lamp] else (150, 150, 150))
    for seat, cell in enumerate(state.positions):
        canvas.fill(cell, 1, seat_colour(seat))
    return canvas.image


class LampsDomain(WorldBase):
    name = "lamps"
    prompts_root, knowledge_root = Path(__file__).parent / "prompts", Path(__file__).parent / "knowledge"
    actions, idle_action, event_kinds, layouts, controller_type = Action, int(Action.STAY), EVENT_KINDS, LAYOUTS, LineController
    useful_events, metric_names = ("light", "complete"), ("completions", "lamps_lit")
    capabilities = Capabilities(grid_rendering("line", render_line, LineState.to_record, page_facts, frame, 250))

    def make_env(self, spec: str, horizon: int) -> LampsEnv:
        return LampsEnv(self.layout(spec), horizon)

    def skill_book(self, first: LineState):
        return skill_book(first)

    def ground(self, state: LineState, seat: int, book, teammates: Sequence[TeammateView], score: float) -> dict:
        """Everything a seat may know (the line is fully observable)."""
        here, cells = state.positions[seat], state.positions
        lamps = [
            {"index": i, "cell": c, "lit": t > 0, "steps_lit": t, "distance": abs(c - here)}
            for i, (c, t) in enumerate(zip(state.lamp_cells, state.timers))
        ]
        mates = [{"seat": t.seat, "cell": cells[t.seat], "last_skill": t.last_skill, "last_action": t.last_action} for t in teammates]
        return {"step": state.step, "horizon": state.horizon, "steps_left": state.horizon - state.step, "score": score,
                "line": render_line(state).splitlines()[1], "me": {"seat": seat, "cell": here, "lamp_here": state.lamp_at(here)},
                "teammates": mates, "lamps": lamps}

    def knowledge_facts(self, env: LampsEnv) -> dict:
        return {"duration": env.layout.duration, "num_lamps": len(env.layout.lamp_cells), "num_agents": env.num_agents}

    def memory_summary(self, facts: dict) -> str:
        lit = [str(lamp["index"]) for lamp in facts["lamps"] if lamp["lit"]]
        return f"you at cell {facts['me']['cell']}; lit lamps: {', '.join(lit) or 'none'}"

    def episode_metrics(self, events: Sequence[LampEvent]) -> dict[str, float]:
        completions = len({e.step for e in events if e.kind == "complete"})
        return {"completions": float(completions), "lamps_lit": float(sum(1 for e in events if e.kind == "light"))}

    def partner_names(self, env: LampsEnv | None = None) -> list[str]:
        return sorted(PARTNERS)

    def make_partner(self, name: str, env: LampsEnv | None = None) -> Agent:
        if name not in PARTNERS:
            raise UnknownAgentError(f"unknown partner {name!r}; lamps partners: {', '.join(sorted(PARTNERS))}")
        return PARTNERS[name]()


DOMAIN = LampsDomain()
