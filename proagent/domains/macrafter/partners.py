"""MA-Crafter's scripted partners: ``tech`` (climbs the tech tree with its team) and ``helper``
(gathers wood and joins whatever quorum act a teammate has started).

Both pick a skill every step and let the same controller as ProAgent ground it, so they differ
from it only in which skill they pick. They are scripted teammates, not players with a prompt:
they read the state they are given (the whole world), which no prompt ever sees.

``tech``, played by every seat, is the scripted *team* policy: everyone gathers wood; the lowest
seat places a table; each crafts a wood pickaxe, mines a stone and crafts a stone pickaxe at the
table (under the paper's crafting quorum, an agent that already has one comes back and crafts
along with a teammate waiting there); then the whole team collects the most valuable resource its
quorum and exact tools allow (iron with three agents holding stone pickaxes). Low drink, food or
energy comes first.
"""

from __future__ import annotations

from collections.abc import Callable

from envs.macrafter.symbolic import CrafterView
from proagent.contract import Agent, ImmediateAgent, Observation, UnknownAgentError
from proagent.domains.macrafter.controller import MACrafterController
from proagent.domains.macrafter.process_terms import holds_tool
from proagent.domains.macrafter.skills import MACrafterSkillBook, skill_book_for
from proagent.domains.macrafter.targets import RESOURCE_OF_ITEM, RESOURCES, known_cells, near_stations, tool_ok
from proagent.world.types import EngineState, Skill

LOW_VITAL = 2  # drink or food at or below this: see to it first
SKILL_TIMEOUT = 40  # steps before a scripted partner gives a running skill up and chooses again


def _urgent(view: CrafterView, seat: int) -> Skill | None:
    """Drink, eat or sleep when a vital runs low and the means are known."""
    vitals = view.agents[seat].vitals
    if vitals.get("drink", 9) <= LOW_VITAL and known_cells(view, "water"):
        return Skill("collect", "water")
    if vitals.get("food", 9) <= LOW_VITAL and known_cells(view, "cow"):
        return Skill("collect", "cow")
    if vitals.get("energy", 9) <= 1:
        return Skill("sleep")
    return None


def best_resource(view: CrafterView) -> str | None:
    """The most valuable resource the team can collect now: its quorum is no more than the live
    agents holding its tool, and a cell of it is known."""
    s = view.settings
    alive = [a for a in view.agents if a.alive]
    able = [
        r
        for r in RESOURCES
        if sum(holds_tool(a, s.resources[r].tool) for a in alive) >= s.resources[r].quorum
        and known_cells(view, r)
    ]
    return max(able, key=lambda r: (s.unit_value(r), r), default=None)


def _lacking(view: CrafterView, seat: int, item: str) -> dict[str, int]:
    """What the seat still lacks of a recipe's needs."""
    me = view.agents[seat]
    return {k: v - me.count(k) for k, v in view.settings.recipes[item].needs.items() if me.count(k) < v}


def tech_skill(view: CrafterView, seat: int) -> Skill:
    """The tech partner's next skill (see the module docstring)."""
    urgent = _urgent(view, seat)
    if urgent is not None:
        return urgent
    me, s = view.agents[seat], view.settings
    placer = min(a.seat for a in view.agents if a.alive)
    tables = known_cells(view, "table")
    tier = 2 if me.count("stone_pickaxe") else 1 if me.count("wood_pickaxe") else 0
    if tier == 0:
        table_cost = s.table_wood if seat == placer and not tables else 0
        if me.count("wood") < table_cost + s.recipes["wood_pickaxe"].needs.get("wood", 0) + 1:
            return Skill("collect", "tree")
        if not tables:
            return Skill("place", "table") if seat == placer else Skill("navigate", f"agent, {placer}")
        return Skill("craft", "wood_pickaxe")
    if tier == 1 and s.recipes["stone_pickaxe"].quorum <= sum(a.alive for a in view.agents):
        lacking = [RESOURCE_OF_ITEM[item] for item in _lacking(view, seat, "stone_pickaxe") if item in RESOURCE_OF_ITEM]
        return Skill("collect", max(lacking)) if lacking else Skill("craft", "stone_pickaxe")
    waiting = [
        a
        for a in view.agents
        if a.alive and a.seat != seat and not a.count("stone_pickaxe") and near_stations(view, a.position, ("table",))
    ]
    if tier >= 2 and waiting and s.recipes["stone_pickaxe"].quorum > 1:
        return Skill("craft", "stone_pickaxe")  # a teammate waits at the table: craft along (the quorum)
    target = best_resource(view)
    return Skill("collect", target) if target is not None else Skill("collect", "tree")


def helper_skill(view: CrafterView, seat: int) -> Skill:
    """Join a teammate's quorum act (a collection that lacked agents, a resource it faces); else
    gather wood and make pickaxes when a table is known."""
    urgent = _urgent(view, seat)
    if urgent is not None:
        return urgent
    me = view.agents[seat]
    for attempt in view.attempts:
        lacking = attempt.outcome == "too_few" and seat not in attempt.participants
        if lacking and attempt.target in RESOURCES and tool_ok(view, seat, attempt.target):
            return Skill("collect", attempt.target)
    for other in view.agents:
        faced = view.material(other.faced_cell) if other.seat != seat and other.alive else None
        name = faced.name.lower() if faced is not None else ""
        if name in RESOURCES and view.settings.resources[name].quorum > 1 and tool_ok(view, seat, name):
            return Skill("collect", name)
    if not me.count("wood_pickaxe") and me.count("wood") >= 1 and known_cells(view, "table"):
        return Skill("craft", "wood_pickaxe")
    if (
        me.count("wood_pickaxe")
        and not me.count("stone_pickaxe")
        and near_stations(view, me.position, ("table",))
        and not _lacking(view, seat, "stone_pickaxe")
    ):
        return Skill("craft", "stone_pickaxe")
    return Skill("collect", "tree")


class SkillPartner(ImmediateAgent):
    """A scripted agent that keeps a skill until it is done, fails its checks or times out (as
    ProAgent does), then picks the next; the same controller grounds it."""

    def __init__(self, name: str, choose: Callable[[CrafterView, int], Skill]) -> None:
        self.name = name
        self.choose = choose
        self.book: MACrafterSkillBook | None = None
        self.controller: MACrafterController | None = None
        self.skill: Skill | None = None
        self.steps = 0

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat
        self.book, self.controller, self.skill = None, None, None

    def policy(self, state: CrafterView, engine: EngineState) -> int:
        if self.book is None or self.controller is None:
            self.book = skill_book_for(state)
            self.controller = MACrafterController(self.book, self.seat)
        if self.skill is not None:
            self.steps += 1
            over = self.steps >= SKILL_TIMEOUT or self.book.is_done(state, self.seat, self.skill, self.steps)
            if over or self.book.failures(state, self.seat, self.skill):
                self.skill = None
        if self.skill is None:
            self.skill, self.steps = self.choose(state, self.seat), 0
        return self.controller.act(state, self.skill)

    def info(self) -> dict:
        return {"skill": str(self.skill) if self.skill is not None else None}


PARTNERS: dict[str, Callable[[CrafterView, int], Skill]] = {"helper": helper_skill, "tech": tech_skill}
DEFAULT_PARTNER = "tech"


def partner_names(env: object | None = None) -> list[str]:
    return sorted(PARTNERS)


def make_partner(name: str, env: object | None = None) -> Agent:
    if name not in PARTNERS:
        raise UnknownAgentError(f"unknown partner {name!r}; macrafter partners: {', '.join(partner_names(env))}")
    return SkillPartner(name, PARTNERS[name])


__all__ = [
    "DEFAULT_PARTNER",
    "PARTNERS",
    "SkillPartner",
    "best_resource",
    "helper_skill",
    "make_partner",
    "partner_names",
    "tech_skill",
]
