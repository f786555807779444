"""MA-Crafter as a world: the interface contract, its capabilities (partial views, team sizes,
rule overrides, plan targets), knowledge that reads the real settings, prompt sets that render
from every seat, observation honesty, and the scripted partners through the core runner."""

from __future__ import annotations

import asyncio
import json

import jax
import jax.numpy as jnp
import pytest
from macrafter_maps import small_env

from proagent.agent.config import AgentConfig
from proagent.agent.planner import Planner
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.builder import check_llm_agent
from proagent.contract import Agent, UnknownAgentError
from proagent.domains import builtin_domain_names, domain_for, get_domain
from proagent.domains.macrafter.perception import CrafterPerceiver
from proagent.runner.episode import run_episode
from proagent.world.interface import REQUIRED_MEMBERS
from proagent.world.types import DomainInputError, TeammateView

DOMAIN = get_domain("macrafter")


def test_macrafter_is_built_in_with_every_member_and_its_capabilities() -> None:
    assert "macrafter" in builtin_domain_names() and [m for m in REQUIRED_MEMBERS if not hasattr(DOMAIN, m)] == []
    assert (
        DOMAIN.layout_names() == ["emcoop", "easy_2a", "medium_3a", "hard_4a"]
        and domain_for("hard_4a", "macrafter") is not None
    )
    assert {"perception", "teams", "settings", "plans"} <= set(DOMAIN.capabilities.names())
    assert DOMAIN.owns("random:medium:4") and DOMAIN.owns("easy_2a@3") and not DOMAIN.owns("cramped_room")
    assert DOMAIN.action_names[5] == "do" and DOMAIN.action_names[-1] == "share_7_energy_20"
    with pytest.raises(DomainInputError, match="easy_2a"):
        DOMAIN.make_env("nowhere", 10)
    env = DOMAIN.capabilities.teams.make_team_env("easy_2a", 12, 3)
    assert env.num_agents == 3 and env.settings.horizon == 12
    wide = DOMAIN.capabilities.settings.make_env_with("easy_2a", 12, {"collect_distance": "2"})
    assert DOMAIN.capabilities.settings.describe(wide)["collect_distance"] == 2
    with pytest.raises(DomainInputError, match="unknown setting"):
        DOMAIN.capabilities.settings.make_env_with("easy_2a", 12, {"gravity": "1"})
    assert (
        DOMAIN.capabilities.plans.target("collect(iron)") == "iron"
        and DOMAIN.capabilities.plans.target("noop(1)") is None
    )
    assert DOMAIN.partner_names(env) == ["helper", "tech"] and DOMAIN.default_partner(env) == "tech"
    assert all(isinstance(DOMAIN.make_partner(n, env), Agent) for n in DOMAIN.partner_names(env))
    with pytest.raises(UnknownAgentError, match="helper, tech"):
        DOMAIN.make_partner("greedy", env)


def test_knowledge_reads_the_envs_real_settings() -> None:
    env = DOMAIN.capabilities.settings.make_env_with("medium_3a", 50, {"resources.iron.quorum": "2"})
    knowledge = load_knowledge(DOMAIN.knowledge_root, env.name, 0, DOMAIN.knowledge_facts(env))
    assert "iron: 2 agent(s), tool stone_pickaxe" in knowledge.rules and "before step 50" in knowledge.task
    assert "stone_pickaxe: 1 wood, 1 stone; next to a table." in knowledge.rules
    assert "place(table) costs 2 wood; place(furnace) costs 4 stone" in knowledge.rules
    assert "Food falls by 1 every 26 steps, drink every 21, energy every 31 awake" in knowledge.rules
    paper = DOMAIN.capabilities.settings.make_env_with("medium_3a", 50, {"recipes.stone_pickaxe.quorum": "2"})
    paper_rules = load_knowledge(DOMAIN.knowledge_root, paper.name, 0, DOMAIN.knowledge_facts(paper)).rules
    assert "stone_pickaxe: 1 wood, 1 stone; next to a table; 2 agents crafting it in the same step." in paper_rules


@pytest.mark.parametrize("prompt", ["proagent", "compact"])
def test_prompt_sets_render_from_every_seat(prompt: str) -> None:
    for layout in ("easy_2a", "medium_3a@4"):
        env = DOMAIN.make_env(layout, 30)
        assert check_llm_agent(DOMAIN, env, AgentConfig(prompt=prompt), list(range(env.num_agents)), 0)


HONEST = [
    "....................",
    ".0..................",
    "....................",
    "..T.............D...",
    "...............1....",
    "....................",
    "....................",
    "....................",
    "....................",
]


def _prompt(env, view, seat: int, mates: list[TeammateView]) -> str:
    facts = DOMAIN.ground(view, seat, DOMAIN.skill_book(view.believed), mates, 0.0)
    knowledge = load_knowledge(DOMAIN.knowledge_root, env.name, seat, DOMAIN.knowledge_facts(env))
    planner = Planner(
        load_prompt_set("proagent", DOMAIN.prompts_root), knowledge, DOMAIN.skill_book(view.believed), seat, "text"
    )
    return planner.messages(facts, [], [])[1].content


def test_a_prompt_holds_only_the_window_what_was_seen_and_no_teammate_bag() -> None:
    env, state = small_env(HONEST, {1: {"coal": 7, "iron_pickaxe": 1}})
    perceiver = CrafterPerceiver.for_env(env, 0)
    view = perceiver.observe(env.symbolic(state))
    mates = [TeammateView(1, "collect(coal)", "do")]
    facts = DOMAIN.ground(view, 0, DOMAIN.skill_book(view.believed), mates, 0.0)
    assert [t["name"] for t in facts["visible"]] == ["tree"] and facts["remembered"] == []
    assert all("D" not in row and "1" not in row for row in facts["view"]["rows"])
    assert facts["teammates"] == [
        {
            "seat": 1,
            "visible": False,
            "where": None,
            "last_seen": None,
            "sleeping": None,
            "last_skill": "collect(coal)",
            "last_action": None,
        }
    ]
    prompt = _prompt(env, view, 0, mates)
    assert (
        "diamond, the nearest" not in prompt
        and "7 coal" not in prompt
        and "iron_pickaxe" not in json.dumps(facts["me"])
    )
    assert view.believed.agents[1].inventory == {} and view.believed.agents[1].position == (-1, -1)
    # Walk right until the diamond and the teammate come into view, then back: both are remembered.
    for action in [2] * 11 + [1] * 5:
        state = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray([action, 0])).state
        view = perceiver.observe(env.symbolic(state))
    facts = DOMAIN.ground(view, 0, DOMAIN.skill_book(view.believed), mates, 0.0)
    assert {t["name"]: t["seen_step"] for t in facts["remembered"]} == {"diamond": 11, "tree": 5}
    assert facts["teammates"][0]["visible"] is False and facts["teammates"][0]["last_seen"] == 12
    prompt = _prompt(env, view, 0, mates)
    assert "Remembered out of view: 1 diamond" in prompt and "7 coal" not in prompt


def test_events_out_of_view_are_not_witnessed() -> None:
    env, state = small_env(HONEST)
    perceiver = CrafterPerceiver.for_env(env, 0)
    before = env.symbolic(state)
    perceiver.observe(before)
    tr = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray([3, 1]))
    after = env.symbolic(tr.state)
    perceiver.observe(after, env.events(before, (3, 1), after))
    assert {e.agent for e in perceiver.witnessed()} == {0}


def test_the_scripted_team_climbs_to_stone_pickaxes_and_coal_on_easy() -> None:
    env = DOMAIN.make_env("easy_2a", 90)
    team = [DOMAIN.make_partner("tech", env) for _ in range(env.num_agents)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0))
    assert all(crafted >= 2 for crafted in record.events["craft"])  # a wood and a stone pickaxe each
    assert record.events["place"] == [1, 0] and record.score > 0


@pytest.mark.slow  # ~15 s: a full 300-step episode of three scripted agents
def test_the_scripted_team_reaches_iron_on_medium() -> None:
    env = DOMAIN.make_env("medium_3a", 300)
    team = [DOMAIN.make_partner("tech", env) for _ in range(env.num_agents)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0))
    assert record.domain_metrics["iron_collected"] >= 1
