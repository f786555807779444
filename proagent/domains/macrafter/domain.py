"""MA-Crafter (EmCoop's open-world cooperation, `envs.macrafter`) behind the world interface.

Everything the core needs to play MA-Crafter is reached from here: the JAX env (`envs.macrafter`),
the skill book and controller (`skills.py`, `controller.py`), each seat's senses (`perception.py`:
its view window and what it remembers; a prompt never holds the whole map), the prompt facts
(`grounding.py`), the knowledge folder (`knowledge/macrafter/`) and prompt sets
(`prompts/macrafter/`), the scripted partners (`partners.py`), and its capabilities: partial
views, team sizes (``--agents``), rule overrides (``--env KEY=VALUE``) and MAEIL plan targets.
A front end's ``--horizon`` replaces the scenario's own horizon; without one the scenario's applies.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from envs.macrafter import Action, CrafterEvent, CrafterEventKind
from envs.macrafter.env import CrafterEnv, make
from envs.macrafter.rules import ACTION_NAMES
from envs.macrafter.scenario import SCENARIOS, ScenarioError, load_scenario, with_agents, with_settings
from proagent.bounded import small_whole
from proagent.contract import Agent
from proagent.domains.macrafter.constraints import METRIC_NAMES as PROCESS_METRIC_NAMES
from proagent.domains.macrafter.constraints import CrafterConstraintCollector
from proagent.domains.macrafter.controller import MACrafterController
from proagent.domains.macrafter.feedback import snapshot
from proagent.domains.macrafter.grounding import ground_facts, memory_line
from proagent.domains.macrafter.partners import DEFAULT_PARTNER, make_partner, partner_names
from proagent.domains.macrafter.perception import CrafterPerceiver, SeatView
from proagent.domains.macrafter.plan_effects import PLAN_EFFECTS
from proagent.domains.macrafter.rendering import RENDERING
from proagent.domains.macrafter.scripted import SCRIPTED
from proagent.domains.macrafter.skills import (
    COLLECT_TIMEOUT,
    CRAFT_TIMEOUT,
    MAX_MOVE,
    MAX_WAIT,
    NAVIGATE_TIMEOUT,
    MACrafterSkillBook,
    skill_book_for,
)
from proagent.domains.macrafter.targets import RESOURCES
from proagent.paths import KNOWLEDGE_DIR, PROMPTS_DIR
from proagent.world.capabilities import (
    Capabilities,
    EnvSettings,
    Feedback,
    Perception,
    PlanTargets,
    ProcessMetrics,
    TeamSizing,
)
from proagent.world.kit.base import WorldBase
from proagent.world.types import DomainInputError, TeammateView

METRIC_NAMES = ("units_collected", "iron_collected", "diamond_collected", "crafts", "failed_collections")
_TARGETED = re.compile(r"^(?:navigate|collect)\((tree|stone|coal|iron|diamond|table|furnace)\)$")


def _scenario(spec: str):
    try:
        return load_scenario(spec)
    except ScenarioError as exc:
        raise DomainInputError(f"macrafter: {exc}") from exc


def make_env(spec: str, horizon: int) -> CrafterEnv:
    try:
        return make(_scenario(spec), horizon)
    except ScenarioError as exc:
        raise DomainInputError(f"macrafter: {exc}") from exc


def make_team_env(spec: str, horizon: int, num_agents: int) -> CrafterEnv:
    """The scenario played by ``num_agents`` agents (``--agents``; the same as ``<spec>@<n>``)."""
    try:
        return make(with_agents(_scenario(spec), num_agents), horizon)
    except ScenarioError as exc:
        raise DomainInputError(f"macrafter: --agents {num_agents}: {exc}") from exc


def make_env_with(spec: str, horizon: int, settings: Mapping[str, str]) -> CrafterEnv:
    """``--env KEY=VALUE`` over the scenario's rules (``collect_distance=2``,
    ``resources.iron.quorum=2``, ...); a bad key or value is one DomainInputError line."""
    try:
        return make(with_settings(_scenario(spec), dict(settings)), horizon)
    except ScenarioError as exc:
        raise DomainInputError(f"macrafter: {exc}") from exc


def describe(env: CrafterEnv) -> dict:
    """What a run's config records of the rules: every setting."""
    return env.settings.model_dump(mode="json")


def plan_target(plan: str) -> str | None:
    """What a plan works on (MAEIL's plan coherence): a resource or a station by name."""
    match = _TARGETED.match(plan)
    return match.group(1) if match else None


def _perceiver(env: CrafterEnv, seat: int) -> CrafterPerceiver:
    return CrafterPerceiver.for_env(env, seat)


class MACrafterDomain(WorldBase):
    """The MA-Crafter world. Stateless: one instance serves every run."""

    name = "macrafter"
    prompts_root = PROMPTS_DIR / "macrafter"
    knowledge_root = KNOWLEDGE_DIR / "macrafter"
    actions = Action
    idle_action = int(Action.NOOP)
    event_kinds = tuple(kind.value for kind in CrafterEventKind)
    useful_events = ("collect", "craft", "place", "share")
    metric_names = METRIC_NAMES
    layouts = SCENARIOS
    capabilities = Capabilities(
        rendering=RENDERING,
        perception=Perception(_perceiver),
        teams=TeamSizing(make_team_env),
        settings=EnvSettings(make_env_with, describe),
        plans=PlanTargets(plan_target),
        process=ProcessMetrics(CrafterConstraintCollector, PROCESS_METRIC_NAMES),
        feedback=Feedback(snapshot),
        plan_effects=PLAN_EFFECTS,
        scripted=SCRIPTED,
    )

    @property
    def action_names(self) -> tuple[str, ...]:
        """The 17 primitive actions, then the share family (``share_2_wood_3``)."""
        return ACTION_NAMES

    def layout_names(self) -> list[str]:
        """EmCoop's generated world first (the world's default), then our fixed maps by size."""
        return sorted(SCENARIOS, key=lambda name: (not SCENARIOS[name].generated, SCENARIOS[name].width, name))

    def owns(self, spec: str) -> bool:
        base, at, count = spec.rpartition("@")
        name = base if at and small_whole(count) is not None else spec
        random_world = name.startswith("random:") and name.split(":")[1] in ("easy", "medium", "hard")
        return name in SCENARIOS or random_world or name.startswith("emcoop:")

    def make_env(self, spec: str, horizon: int) -> CrafterEnv:
        return make_env(spec, horizon)

    def default_horizon(self, spec: str) -> int:
        return _scenario(spec).settings.horizon

    def skill_book(self, first) -> MACrafterSkillBook:
        return skill_book_for(first.believed if isinstance(first, SeatView) else first)

    def controller(self, book: MACrafterSkillBook, seat: int, seed: int) -> MACrafterController:
        return MACrafterController(book, seat, seed)

    def ground(
        self, state, seat: int, book: MACrafterSkillBook, teammates: Sequence[TeammateView], score: float
    ) -> dict:
        """The seat's view (the perceiver's); a whole state, as the prompt check passes, is first
        cut to the seat's window."""
        return ground_facts(state, seat, teammates, score)

    def knowledge_facts(self, env: CrafterEnv) -> dict:
        s = env.settings
        return {
            "num_agents": env.num_agents,
            "width": s.width,
            "height": s.height,
            "horizon": s.horizon,
            "collect_distance": s.collect_distance,
            "item_max": s.item_max,
            "view_width": s.view_width,
            "view_height": s.view_height,
            "tool_tier_bonus": s.tool_tier_bonus,
            "table_wood": s.table_wood,
            "furnace_stone": s.furnace_stone,
            "vital_max": s.vital_max,
            "cow_food": s.cow_food,
            "hunger_every": s.hunger_threshold + 1,
            "thirst_every": s.thirst_threshold + 1,
            "fatigue_every": s.fatigue_threshold + 1,
            "rest_every": s.rest_threshold + 1,
            "recover_every": s.recover_threshold + 1,
            "degen_every": s.degen_threshold + 1,
            "score_per_participant": s.score_per_participant,
            "resources": {
                r: {**s.resources[r].model_dump(), "unit_value": s.unit_value(r)} for r in RESOURCES if r in s.resources
            },
            "recipes": {c: rule.model_dump() for c, rule in s.recipes.items()},
            "target": env.scenario.target,
            "max_wait": MAX_WAIT,
            "max_move": MAX_MOVE,
            "navigate_timeout": NAVIGATE_TIMEOUT,
            "collect_timeout": COLLECT_TIMEOUT,
            "craft_timeout": CRAFT_TIMEOUT,
        }

    def memory_summary(self, facts: dict) -> str:
        return memory_line(facts)

    def episode_metrics(self, events: Sequence[CrafterEvent]) -> dict[str, float]:
        """Units the team collected (each mined cell once, however many participants received it),
        iron and diamond among them, crafts (once per crafted item) and failed collection tries."""
        units = {(e.step, e.target, e.item) for e in events if e.kind == CrafterEventKind.COLLECT}
        crafts = {(e.step, e.item, tuple(e.participants)) for e in events if e.kind == CrafterEventKind.CRAFT}
        per_item = Counter(item for _, _, item in units)
        failed = {(e.step, e.target) for e in events if e.kind == CrafterEventKind.COLLECT_FAILED}
        return {
            "units_collected": float(len(units)),
            "iron_collected": float(per_item["iron"]),
            "diamond_collected": float(per_item["diamond"]),
            "crafts": float(len(crafts)),
            "failed_collections": float(len(failed)),
        }

    def partner_names(self, env: CrafterEnv | None = None) -> list[str]:
        return partner_names(env)

    def make_partner(self, name: str, env: CrafterEnv | None = None) -> Agent:
        return make_partner(name, env)

    def default_partner(self, env: CrafterEnv) -> str:
        return DEFAULT_PARTNER


__all__ = ["MACrafterDomain", "make_env", "make_env_with", "make_team_env", "plan_target"]
