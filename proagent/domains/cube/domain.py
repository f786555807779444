"""CUBE (EmCoop's block pushing, `envs.cube`) behind the world interface (`proagent.world`).

Everything the core needs to play CUBE is reached from here: the JAX env (`envs.cube`), the skill
book and controller (`skills.py`), the prompt facts (`grounding.py`), the knowledge folder
(`knowledge/cube/`) and prompt sets (`prompts/cube/`), the scripted and IPPO partners, the metrics,
and its capabilities: drawing, team sizes (``--agents``), EmCoop's constraint process metrics and
MAEIL plan targets. A front end's ``--horizon`` replaces the scenario's own horizon; without one
the scenario's applies.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from envs.cube import CubeAction, CubeEnv, CubeEvent, CubeEventKind, CubeView, ScenarioError
from envs.cube.scenario import SCENARIOS, load_scenario, with_agents
from proagent.bounded import small_whole
from proagent.contract import Agent
from proagent.domains.cube.constraints import METRIC_NAMES, CubeConstraintCollector
from proagent.domains.cube.grounding import ground_facts, memory_line, render_grid
from proagent.domains.cube.partners import DEFAULT_PARTNER, make_partner, partner_names
from proagent.domains.cube.plan_effects import PLAN_EFFECTS
from proagent.domains.cube.rl_spec import CUBE_RL
from proagent.domains.cube.scripted import SCRIPTED
from proagent.domains.cube.skills import MAX_STEPS, SKILLS, CubeController, skill_book_for
from proagent.paths import KNOWLEDGE_DIR, PROMPTS_DIR
from proagent.world.capabilities import Capabilities, PlanTargets, ProcessMetrics, TeamSizing
from proagent.world.kit.base import WorldBase
from proagent.world.kit.pictures import GridCanvas, grid_rendering, seat_colour
from proagent.world.kit.skills import TableSkillBook
from proagent.world.types import DomainInputError, TeammateView

_TARGETED = re.compile(rf"^(?:{'|'.join(d.name for d in SKILLS if d.args == 'block')})\((\d+)\)$")
_CELL = 8  # pixels per cell in the GIF


def _scenario(spec: str):
    try:
        return load_scenario(spec)
    except ScenarioError as exc:
        raise DomainInputError(f"cube: {exc}") from exc  # it names the scenarios and the other forms


def make_env(spec: str, horizon: int) -> CubeEnv:
    return CubeEnv(dataclasses.replace(_scenario(spec), horizon=horizon))


def make_team_env(spec: str, horizon: int, num_agents: int) -> CubeEnv:
    """The scenario played by ``num_agents`` agents (`--agents`; the same as ``<spec>@<n>``):
    starts spread down column 0, or for ``coop2`` tasks COOP²'s own spawn (the same blocks)."""
    env = make_env(spec, horizon)
    if env.scenario.difficulty == "coop2" and num_agents != env.num_agents:
        return make_env(f"{spec.partition('@')[0]}@{num_agents}", horizon)
    try:
        return CubeEnv(with_agents(env.scenario, num_agents))
    except ScenarioError as exc:
        raise DomainInputError(f"cube: --agents {num_agents}: {exc}") from exc


def page_facts(env: CubeEnv, first: CubeView) -> dict:
    s = env.scenario
    return {"grid_size": s.grid_size, "goal_column": s.goal_column, "step_cost": s.step_cost, "horizon": s.horizon}


def frame(state: CubeView) -> np.ndarray:
    """One picture: blocks grey, agents coloured by seat, the goal columns green."""
    canvas = GridCanvas(state.grid_size, state.grid_size, _CELL)
    canvas.fill_columns(state.goal_column, (200, 235, 200))
    for block in state.remaining:
        (x, y), w = block.position, block.weight
        canvas.fill(x, y, (120, 120, 120), w, w)
    for seat, (x, y) in enumerate(state.agents):
        canvas.fill(x, y, seat_colour(seat))
    return canvas.image


def plan_target(plan: str) -> str | None:
    """The block a plan works on (MAEIL's plan coherence): every block skill (navigate(b), push(b),
    push_down(b), ...) targets b."""
    match = _TARGETED.match(plan)
    return f"block {match.group(1)}" if match else None


RENDERING = grid_rendering("cube", render_grid, CubeView.to_record, page_facts, frame, 200)


class CubeDomain(WorldBase):
    """The CUBE world. Stateless: one instance serves every run."""

    name = "cube"
    prompts_root = PROMPTS_DIR / "cube"
    knowledge_root = KNOWLEDGE_DIR / "cube"
    actions = CubeAction
    idle_action = int(CubeAction.STAY)
    event_kinds = tuple(kind.value for kind in CubeEventKind)
    useful_events = ("push_ok", "deliver")
    metric_names = ("blocks_delivered", "weight_delivered", "failed_pushes")
    layouts = SCENARIOS
    capabilities = Capabilities(
        rendering=RENDERING,
        process=ProcessMetrics(CubeConstraintCollector, METRIC_NAMES),
        teams=TeamSizing(make_team_env),
        plans=PlanTargets(plan_target),
        rl=CUBE_RL,
        plan_effects=PLAN_EFFECTS,
        scripted=SCRIPTED,
    )

    def layout_names(self) -> list[str]:
        """Our fixed scenarios, then COOP²'s paper task (``coop2``; ``coop2:<seed>`` for another seed)."""
        return sorted(SCENARIOS, key=lambda name: (name == "coop2", name))

    def owns(self, spec: str) -> bool:
        base, at, count = spec.rpartition("@")
        name = base if at and small_whole(count) is not None else spec
        return name in SCENARIOS or name.startswith(("random:", "coop2:"))

    def make_env(self, spec: str, horizon: int) -> CubeEnv:
        return make_env(spec, horizon)

    def default_horizon(self, spec: str) -> int:
        """The scenario's own horizon (used when the front end is given none)."""
        return _scenario(spec).horizon

    def skill_book(self, first: CubeView) -> TableSkillBook:
        return skill_book_for(first)

    def controller(self, book: TableSkillBook, seat: int, seed: int) -> CubeController:
        return CubeController(book, seat, seed)

    def ground(
        self, state: CubeView, seat: int, book: TableSkillBook, teammates: Sequence[TeammateView], score: float
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

    def episode_metrics(self, events: Sequence[CubeEvent]) -> dict[str, float]:
        """Deliveries count once per block (every pusher of a delivering push gets an event)."""
        delivered = {e.block: e.weight or 0 for e in events if e.kind == CubeEventKind.DELIVER}
        return {
            "blocks_delivered": float(len(delivered)),
            "weight_delivered": float(sum(delivered.values())),
            "failed_pushes": float(sum(1 for e in events if e.kind == CubeEventKind.PUSH_FAILED)),
        }

    def partner_names(self, env: CubeEnv | None = None) -> list[str]:
        return partner_names(env)  # the scripted ones, plus IPPO where a checkpoint ships for the scenario

    def make_partner(self, name: str, env: CubeEnv | None = None) -> Agent:
        return make_partner(name, env)

    def default_partner(self, env: CubeEnv) -> str:
        return DEFAULT_PARTNER


__all__ = ["CubeDomain"]
