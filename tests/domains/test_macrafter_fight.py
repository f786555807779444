"""MA-Crafter's hostile creatures on the agent side: a prompt shows only the creatures in the seat's
window, the fight skill exists only when the world has creatures, its check needs a creature in view
and its done-test fires when the blow kills it, and the scripted partners fight back a zombie."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from macrafter_maps import small_env

from envs.macrafter import CrafterEnv, CrafterState
from envs.macrafter.settings import CreatureRules
from proagent.agent.config import AgentConfig
from proagent.agent.planner import Planner
from proagent.agent.prompts import load_knowledge, load_prompt_set
from proagent.builder import check_llm_agent
from proagent.domains import get_domain
from proagent.domains.macrafter.controller import MACrafterController
from proagent.domains.macrafter.grounding import render_world
from proagent.domains.macrafter.partners import make_partner
from proagent.domains.macrafter.perception import CrafterPerceiver, SeatView
from proagent.domains.macrafter.rendering import CELL, CREATURE_COLOURS, frame, record, text
from proagent.domains.macrafter.skills import skill_book_for
from proagent.world.types import Skill

DOMAIN = get_domain("macrafter")
STILL = CreatureRules(zombie_spawn_probability=0.0, skeleton_spawn_probability=0.0, zombie_move_probability=0.0)
HOSTILE = {"hostile_creatures": True, "creatures": STILL}
WIDE = [
    "....................",
    ".0..................",
    "....................",
    "..T.................",
    "...............1....",
    "....................",
    "....................",
    "....................",
    "....................",
]
SMALL = [
    ".........",
    ".0.......",
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
]


def put(state: CrafterState, *zombies: tuple[int, int, int]) -> CrafterState:
    """Zombies (x, y, health) into the first slots."""
    pos, alive, health = (
        np.asarray(a).copy() for a in (state.creature_pos, state.creature_alive, state.creature_health)
    )
    for slot, (x, y, hp) in enumerate(zombies):
        pos[slot], alive[slot], health[slot] = (x, y), True, hp
    return state._replace(
        creature_pos=jnp.asarray(pos), creature_alive=jnp.asarray(alive), creature_health=jnp.asarray(health)
    )


def _prompt(env: CrafterEnv, view: SeatView, seat: int) -> str:
    book = DOMAIN.skill_book(view.believed)
    facts = DOMAIN.ground(view, seat, book, [], 0.0)
    knowledge = load_knowledge(DOMAIN.knowledge_root, env.name, seat, DOMAIN.knowledge_facts(env))
    planner = Planner(load_prompt_set("proagent", DOMAIN.prompts_root), knowledge, book, seat, "text")
    messages = planner.messages(facts, [], [])
    return messages[0].content + "\n" + messages[1].content


def test_a_prompt_lists_only_the_creatures_in_the_seats_window() -> None:
    env, state = small_env(WIDE, rules=HOSTILE)
    state = put(state, (3, 2, 5), (15, 6, 5))  # one in agent 0's 9x7 window, one far outside it
    truth = env.symbolic(state)
    assert len(truth.creatures) == 2 and render_world(truth).count("z") == 2
    drawn = text(truth).splitlines()
    assert sum(row.count("z") for row in drawn[1:10]) == 2 and drawn[-1].endswith("z zombie, k skeleton")
    picture = frame(truth, 9)
    assert tuple(picture[2 * CELL + CELL // 2, 3 * CELL + CELL // 2]) == CREATURE_COLOURS["zombie"]
    assert record(truth)["creatures"][0] == {"slot": 0, "kind": "zombie", "position": [3, 2], "health": 5}
    view = CrafterPerceiver.for_env(env, 0).observe(truth)
    assert [c.position for c in view.believed.creatures] == [(3, 2)]
    facts = DOMAIN.ground(view, 0, DOMAIN.skill_book(view.believed), [], 0.0)
    assert facts["creatures"] == [{"kind": "zombie", "where": "2 right, 1 down", "health": 5, "steps": 2}]
    assert sum(row.count("z") for row in facts["view"]["rows"]) == 1
    prompt = _prompt(env, view, 0)
    assert prompt.count("In view: a zombie") == 1 and "14 right" not in prompt
    assert "fight(creature)" in prompt and f"bites for {STILL.zombie_damage} health" in prompt
    assert f"{STILL.iron_sword_damage} with an iron sword" in prompt


def test_without_creatures_the_prompt_has_no_fight_skill_and_no_creature_facts() -> None:
    env, state = small_env(WIDE)
    view = CrafterPerceiver.for_env(env, 0).observe(env.symbolic(state))
    facts = DOMAIN.ground(view, 0, DOMAIN.skill_book(view.believed), [], 0.0)
    assert "creatures" not in facts and "fight" not in DOMAIN.skill_book(view.believed).specs
    prompt = _prompt(env, view, 0)
    assert "fight" not in prompt and "zombie" not in prompt


def test_fight_needs_a_creature_in_view_and_is_done_when_its_blow_kills_it() -> None:
    env, state = small_env(SMALL, {0: {"wood_sword": 1}}, rules=HOSTILE)
    book = skill_book_for(env.symbolic(state))
    fight = Skill("fight", "zombie")
    assert book.failures(env.symbolic(state), 0, fight) == ["no zombie is in view"]
    assert book.parse("fight(zombie)") == fight
    state = put(state, (4, 3, STILL.wood_sword_damage))  # one blow of the wood sword kills it
    view = env.symbolic(state)
    assert book.failures(view, 0, fight) == []
    gamma = MACrafterController(book, 0)
    book.is_done(view, 0, fight, 0)
    for t in range(1, 12):
        state = env.jit_step(jax.random.PRNGKey(t), state, jnp.asarray([gamma.act(view, fight)])).state
        view = env.symbolic(state)
        if book.is_done(view, 0, fight, t):
            break
    assert view.results[0] == "kill" and view.creatures == () and t < 11


def test_a_scripted_partner_fights_back_a_zombie_beside_it() -> None:
    env, state = small_env(SMALL, rules=HOSTILE)
    view = env.symbolic(put(state, (1, 2, 5)))  # right below agent 0, which faces down
    for name in ("tech", "helper"):
        partner = make_partner(name, env)
        partner.reset(0, 0)
        assert partner.policy(view, None) == 5 and partner.info() == {"skill": "fight(zombie)"}


def test_both_prompt_sets_render_with_creatures_on_from_every_seat() -> None:
    env = DOMAIN.capabilities.settings.make_env_with("easy_2a", 30, {"hostile_creatures": "true"})
    assert (
        env.settings.hostile_creatures and DOMAIN.capabilities.settings.describe(env)["creatures"]["max_zombies"] == 3
    )
    for prompt in ("proagent", "compact"):
        assert check_llm_agent(DOMAIN, env, AgentConfig(prompt=prompt), list(range(env.num_agents)), 0)
