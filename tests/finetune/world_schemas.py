"""The planner of each world as the agent builds it for a decision, so the tests of answer rendering
use the schemas the agent really sends: its knowledge read from the world's env settings, its skill
book for a small game (no engine state is needed for either), a prompt set, the teammates' seats."""

from __future__ import annotations

from proagent.agent.planner import Planner
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.builder import domain_for
from proagent.domains.cube.skills import cube_skill_book
from proagent.domains.macrafter.skills import MACrafterSkillBook
from proagent.domains.overcooked.skills import SkillBook
from proagent.domains.yokai.skills import yokai_skill_book
from proagent.world.types import SkillBook as AnyBook

WORLDS = ("overcooked", "cube", "yokai", "macrafter")


def _book(world: str, agents: int) -> AnyBook:
    books = {
        "overcooked": lambda: SkillBook(("onion", "dish", "soup")),
        "cube": lambda: cube_skill_book(2),
        "yokai": lambda: yokai_skill_book(9, 2, 3),
        "macrafter": lambda: MACrafterSkillBook(agents),
    }
    return books[world]()


def world_planner(world: str, prompt: str, teammates: tuple[int, ...] = (1,)) -> Planner:
    """Seat 0's planner in ``world``'s default layout with ``teammates``, JSON answers."""
    domain = domain_for(None, world)
    layout = domain.default_layout()
    facts = domain.knowledge_facts(domain.make_env(layout, 10))
    knowledge = load_knowledge(domain.knowledge_root, layout, 0, facts)
    book = _book(world, len(teammates) + 1)
    return Planner(load_prompt_set(prompt, domain.prompts_root), knowledge, book, 0, "json", teammates=teammates)
