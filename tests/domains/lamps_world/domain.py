"""Lamps on a line behind the `proagent.domains.base.Domain` interface.

Everything the core needs to play this world is reached from here: the JAX env (`env.py`), the
skill book and controller (`skills.py`), the prompt facts (`ground`), the knowledge and prompt
folders next to this file, the scripted partners, the per-episode metrics and the renderers.
Nothing in `proagent/` knows this module exists: ``--domain lamps_world:DOMAIN`` imports it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lamps_world.env import EVENT_KINDS, LAYOUTS, Action, EnvState, LampEvent, LampsEnv, LineState, render_line
from lamps_world.partners import PARTNERS
from lamps_world.skills import LampsSkillBook, LineController
from proagent.contract import Agent, UnknownAgentError
from proagent.domains.base import DomainInputError, Skill, TeammateView

HERE = Path(__file__).parent
_CELL = 12  # pixels per cell in the GIF
_SEAT_COLOURS = ((220, 60, 60), (60, 110, 220), (60, 170, 80), (160, 80, 200))


class LampsDomain:
    """The lamps world. Stateless: one instance serves every run."""

    name = "lamps"
    rl = None  # no RL spec: `proagent train --domain` refuses this world in one line
    prompts_root: Path = HERE / "prompts"
    knowledge_root: Path = HERE / "knowledge"
    idle_action = int(Action.STAY)
    useful_events = ("light", "complete")
    metric_names = ("completions", "lamps_lit")

    def layout_names(self) -> list[str]:
        return sorted(LAYOUTS)

    def owns(self, spec: str) -> bool:
        return spec in LAYOUTS

    def make_env(self, spec: str, horizon: int) -> LampsEnv:
        if spec not in LAYOUTS:
            raise DomainInputError(f"unknown lamps layout {spec!r}; layouts: {', '.join(self.layout_names())}")
        return LampsEnv(LAYOUTS[spec], horizon)

    def skill_book(self, first: LineState) -> LampsSkillBook:
        return LampsSkillBook.for_state(first)

    def controller(self, book: LampsSkillBook, seat: int, seed: int) -> LineController:
        return LineController(book, seat, seed)

    def ground(
        self, state: LineState, seat: int, book: LampsSkillBook, teammates: Sequence[TeammateView], score: float
    ) -> dict:
        """Everything a seat may know (the line is fully observable), as JSON-able data."""
        here = state.positions[seat]
        return {
            "step": state.step,
            "horizon": state.horizon,
            "steps_left": state.steps_left,
            "score": score,
            "line": render_line(state).splitlines()[1],
            "me": {"seat": seat, "cell": here, "lamp_here": state.lamp_at(here)},
            "teammates": [
                {
                    "seat": t.seat,
                    "cell": state.positions[t.seat],
                    "last_skill": t.last_skill,
                    "last_action": t.last_action,
                }
                for t in teammates
            ],
            "lamps": [
                {"index": i, "cell": cell, "lit": timer > 0, "steps_lit": timer, "distance": abs(cell - here)}
                for i, (cell, timer) in enumerate(zip(state.lamp_cells, state.timers))
            ],
        }

    def knowledge_facts(self, env: LampsEnv) -> dict:
        return {"duration": env.layout.duration, "num_lamps": len(env.layout.lamp_cells), "num_agents": env.num_agents}

    def memory_summary(self, facts: dict) -> str:
        lit = [str(lamp["index"]) for lamp in facts["lamps"] if lamp["lit"]]
        return f"you at cell {facts['me']['cell']}; lit lamps: {', '.join(lit) or 'none'}"

    def action_name(self, action: int) -> str:
        return Action(int(action)).name.lower()

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name.lower() for a in Action)

    def page_facts(self, env: LampsEnv, first: LineState) -> dict:
        return {"length": env.layout.length, "lamp_cells": list(env.layout.lamp_cells), "duration": env.layout.duration}

    def state_record(self, state: LineState) -> dict:
        return state.to_record()

    def render_text(self, state: LineState) -> str:
        return render_line(state)

    def frame_extras(self, env: LampsEnv, state: LineState, after: LineState, done: bool) -> dict:
        """The structured line each step, the layout once, the final state after the last step."""
        extras: dict = {"line": state.to_record()}
        if state.step == 0:
            extras["layout"] = self.page_facts(env, state)
        if done:
            extras["final"] = {"state": render_line(after), "line": after.to_record()}
        return extras

    def save_gif(self, env: LampsEnv, states: Sequence[EnvState], path: Path) -> None:
        """One small picture per state: lamps in the top row (yellow lit, grey dark), agents below.
        Written with Pillow directly: importing Overcooked's writer (`envs`) would load its engine."""
        from PIL import Image

        frames = [Image.fromarray(_frame(env.symbolic(s))) for s in states]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=250, loop=0)

    def count_events(self, events: Sequence[LampEvent], num_agents: int) -> dict[str, list[int]]:
        per_seat = Counter((e.kind, e.agent) for e in events)
        return {kind: [per_seat[(kind, seat)] for seat in range(num_agents)] for kind in EVENT_KINDS}

    def episode_metrics(self, events: Sequence[LampEvent]) -> dict[str, float]:
        return {
            "completions": float(len({e.step for e in events if e.kind == "complete"})),
            "lamps_lit": float(sum(1 for e in events if e.kind == "light")),
        }

    def interdependence_collector(self, first: LineState) -> None:
        """No STRIPS model for this world: records carry no interdependence fields."""
        return

    def interdependence_model(self, layout: str) -> None:
        """Nor can `proagent analyze` re-analyse its runs."""
        return

    def skill_of_event(self, event: LampEvent) -> Skill | None:
        return LampsSkillBook.skill_of_event(event)

    def partner_names(self, env: LampsEnv | None = None) -> list[str]:
        return sorted(PARTNERS)

    def make_partner(self, name: str, env: LampsEnv | None = None) -> Agent:
        if name not in PARTNERS:
            raise UnknownAgentError(f"unknown partner {name!r}; lamps partners: {', '.join(sorted(PARTNERS))}")
        return PARTNERS[name]()


def _frame(state: LineState) -> np.ndarray:
    image = np.full((2 * _CELL, state.length * _CELL, 3), 255, np.uint8)
    for lamp, cell in enumerate(state.lamp_cells):
        image[1 : _CELL - 1, cell * _CELL + 1 : (cell + 1) * _CELL - 1] = (
            (240, 200, 40) if state.lit[lamp] else (150, 150, 150)
        )
    for seat, cell in enumerate(state.positions):
        image[_CELL + 1 : 2 * _CELL - 1, cell * _CELL + 1 : (cell + 1) * _CELL - 1] = _SEAT_COLOURS[
            seat % len(_SEAT_COLOURS)
        ]
    return image


DOMAIN = LampsDomain()
