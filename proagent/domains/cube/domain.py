"""CUBE (EmCoop's block pushing, `envs.cube`) behind the `proagent.domains.base.Domain` interface.

Everything the core needs to play CUBE is reached from here: the JAX env (`envs.cube`), the skill
book and controller (`skills.py`), the prompt facts (`grounding.py`), the knowledge folder
(`knowledge/cube/`) and this package's prompt sets, the scripted partners, the metrics and the
renderers. A front end's ``--horizon`` replaces the scenario's own horizon; without one the
scenario's applies (`default_horizon`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from envs.cube import CubeAction, CubeEnv, CubeEnvState, CubeEvent, CubeEventKind, CubeView, ScenarioError
from envs.cube.scenario import SCENARIOS, load_scenario, with_agents
from proagent.contract import Agent
from proagent.domains.base import DomainInputError, Skill, TeammateView
from proagent.domains.cube.constraints import METRIC_NAMES, CubeConstraintCollector
from proagent.domains.cube.grounding import ground_facts, memory_line, render_grid
from proagent.domains.cube.partners import DEFAULT_PARTNER, make_partner, partner_names
from proagent.domains.cube.skills import MAX_STEPS, SKILLS, CubeController, CubeSkillBook
from proagent.paths import KNOWLEDGE_DIR, PROMPTS_DIR

if TYPE_CHECKING:
    from proagent.domains.cube.rl_spec import CubeRLSpec

HERE = Path(__file__).parent
_TARGETED = re.compile(rf"^(?:{'|'.join(d.name for d in SKILLS if d.args == 'block')})\((\d+)\)$")
_CELL = 8  # pixels per cell in the GIF
_AGENT_COLOURS = ((220, 60, 60), (60, 110, 220), (60, 170, 80), (160, 80, 200), (230, 140, 30), (30, 170, 170))


class CubeDomain:
    """The CUBE world. Stateless: one instance serves every run."""

    name = "cube"
    prompts_root: Path = PROMPTS_DIR / "cube"
    knowledge_root: Path = KNOWLEDGE_DIR / "cube"
    idle_action = int(CubeAction.STAY)
    useful_events = ("push_ok", "deliver")
    metric_names = ("blocks_delivered", "weight_delivered", "failed_pushes")
    process_metric_names = METRIC_NAMES  # EmCoop's constraint totals, `CubeConstraintCollector.result`

    @property
    def rl(self) -> CubeRLSpec:
        """The RL spec `proagent train --domain cube` trains this world's partners with (imported on use: JAX)."""
        from proagent.domains.cube.rl_spec import CUBE_RL

        return CUBE_RL

    def layout_names(self) -> list[str]:
        return sorted(SCENARIOS)

    def owns(self, spec: str) -> bool:
        base, at, count = spec.rpartition("@")
        name = base if at and count.isdigit() else spec
        return name in SCENARIOS or name.startswith("random:")

    def make_env(self, spec: str, horizon: int) -> CubeEnv:
        try:
            scenario = load_scenario(spec)
        except ScenarioError as exc:
            raise DomainInputError(f"cube: {exc}") from exc  # it names the scenarios and the other forms
        return CubeEnv(dataclasses.replace(scenario, horizon=horizon))

    def default_horizon(self, spec: str) -> int:
        """The scenario's own horizon (used when the front end is given none)."""
        try:
            return load_scenario(spec).horizon
        except ScenarioError as exc:
            raise DomainInputError(f"cube: {exc}") from exc

    def make_team_env(self, spec: str, horizon: int, num_agents: int) -> CubeEnv:
        """The scenario played by ``num_agents`` agents (`--agents`; the same as ``<spec>@<n>``):
        starts spread down column 0."""
        env = self.make_env(spec, horizon)
        try:
            return CubeEnv(with_agents(env.scenario, num_agents))
        except ScenarioError as exc:
            raise DomainInputError(f"cube: --agents {num_agents}: {exc}") from exc

    def skill_book(self, first: CubeView) -> CubeSkillBook:
        return CubeSkillBook.for_state(first)

    def controller(self, book: CubeSkillBook, seat: int, seed: int) -> CubeController:
        return CubeController(book, seat, seed)

    def ground(
        self, state: CubeView, seat: int, book: CubeSkillBook, teammates: Sequence[TeammateView], score: float
    ) -> dict:
        return ground_facts(state, seat, teammates, score)

    def knowledge_facts(self, env: CubeEnv) -> dict:
        s = env.scenario
        return {
            "grid_size": s.grid_size,
            "goal_column": s.goal_column,
            "horizon": s.horizon,
            "step_cost": s.step_cost,
            "num_agents": env.num_agents,
            "num_blocks": env.num_blocks,
            "max_weight": max(b.weight for b in s.blocks),
            "max_steps": MAX_STEPS,
        }

    def memory_summary(self, facts: dict) -> str:
        return memory_line(facts)

    def action_name(self, action: int) -> str:
        return CubeAction(int(action)).name.lower()

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name.lower() for a in CubeAction)

    def page_facts(self, env: CubeEnv, first: CubeView) -> dict:
        s = env.scenario
        return {"grid_size": s.grid_size, "goal_column": s.goal_column, "step_cost": s.step_cost, "horizon": s.horizon}

    def state_record(self, state: CubeView) -> dict:
        return state.to_record()

    def render_text(self, state: CubeView) -> str:
        return render_grid(state)

    def frame_extras(self, env: CubeEnv, state: CubeView, after: CubeView, done: bool) -> dict:
        """The structured state each step, the layout once, the final state after the last step."""
        extras: dict = {"cube": state.to_record()}
        if state.step == 0:
            extras["layout"] = self.page_facts(env, state)
        if done:
            extras["final"] = {"state": render_grid(after), "cube": after.to_record()}
        return extras

    def save_gif(self, env: CubeEnv, states: Sequence[CubeEnvState], path: Path) -> None:
        """One small picture per state (blocks grey, agents coloured, the goal column green), with
        Pillow directly: `envs.save_gif` would import Overcooked's renderer."""
        from PIL import Image

        frames = [Image.fromarray(_frame(env.symbolic(s))) for s in states]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=200, loop=0)

    def count_events(self, events: Sequence[CubeEvent], num_agents: int) -> dict[str, list[int]]:
        per_seat = Counter((str(e.kind), e.agent) for e in events)
        return {kind.value: [per_seat[(kind.value, seat)] for seat in range(num_agents)] for kind in CubeEventKind}

    def episode_metrics(self, events: Sequence[CubeEvent]) -> dict[str, float]:
        """Deliveries count once per block (every pusher of a delivering push gets an event)."""
        delivered = {e.block: e.weight or 0 for e in events if e.kind == CubeEventKind.DELIVER}
        return {
            "blocks_delivered": float(len(delivered)),
            "weight_delivered": float(sum(delivered.values())),
            "failed_pushes": float(sum(1 for e in events if e.kind == CubeEventKind.PUSH_FAILED)),
        }

    def interdependence_collector(self, first: CubeView) -> None:
        """No STRIPS model for CUBE yet: records carry no interdependence fields."""
        return

    def process_collector(self, first: CubeView) -> CubeConstraintCollector:
        """EmCoop's cooperation-constraint process (C+/C-, failure attribution, dZ) for one episode."""
        return CubeConstraintCollector(first)

    def interdependence_model(self, layout: str) -> None:
        return

    def plan_target(self, plan: str) -> str | None:
        """The block a plan works on (MAEIL's plan coherence): every block skill (navigate(b), push(b),
        push_down(b), ...) targets b."""
        match = _TARGETED.match(plan)
        return f"block {match.group(1)}" if match else None

    def skill_of_event(self, event: CubeEvent) -> Skill | None:
        return CubeSkillBook.skill_of_event(event)

    def partner_names(self, env: CubeEnv | None = None) -> list[str]:
        return partner_names(env)  # the scripted ones, plus IPPO where a checkpoint ships for the scenario

    def make_partner(self, name: str, env: CubeEnv | None = None) -> Agent:
        return make_partner(name, env)

    def default_partner(self, env: CubeEnv) -> str:
        """The teammate `play` puts in every other seat when none is named."""
        return DEFAULT_PARTNER


def _frame(state: CubeView) -> np.ndarray:
    size = state.grid_size * _CELL
    image = np.full((size, size, 3), 255, np.uint8)
    image[:, state.goal_column * _CELL :] = (200, 235, 200)
    for block in state.remaining:
        x, y, w = *block.position, block.weight
        image[y * _CELL + 1 : (y + w) * _CELL - 1, x * _CELL + 1 : (x + w) * _CELL - 1] = (120, 120, 120)
    for seat, (x, y) in enumerate(state.agents):
        colour = _AGENT_COLOURS[seat % len(_AGENT_COLOURS)]
        image[y * _CELL + 1 : (y + 1) * _CELL - 1, x * _CELL + 1 : (x + 1) * _CELL - 1] = colour
    return image


__all__ = ["CubeDomain"]
