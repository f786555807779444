"""A model answer with a huge number or another script's digits is an unreadable answer: the
planner's own parse error (fed back, counted, recorded), never int()'s ValueError ending the run,
on the kit's shared parser (every world) and on MA-Crafter's."""

from __future__ import annotations

import asyncio
import json

import jax
import pytest

from proagent.agent.config import AgentConfig
from proagent.agent.planner import PlanParseError
from proagent.agent.proagent import ProAgent
from proagent.contract import Observation
from proagent.domains import get_domain
from proagent.domains.macrafter.parsing import read_skill
from proagent.domains.macrafter.skills import MACrafterSkillBook
from proagent.domains.yokai.skills import yokai_skill_book
from proagent.world.types import SkillParseError
from tests.support.responders.yokai import yokai_answer
from tests.support.scripted import ScriptedModel, answering

NINES = "9" * 5000
YOKAI = get_domain("yokai")


@pytest.mark.parametrize("arg", [NINES, "٣", "³"])
def test_the_kit_parser_refuses_a_huge_or_non_ascii_argument_as_a_parse_error(arg: str) -> None:
    book = yokai_skill_book(num_cards=9, num_hints=4, grid_size=5)
    with pytest.raises(SkillParseError) as info:
        book.parse(f"observe({arg})")
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


def test_the_kit_parser_still_reads_its_numbers() -> None:
    book = yokai_skill_book(num_cards=9, num_hints=4, grid_size=5)
    assert str(book.parse("observe(3)")) == "observe(3)"
    with pytest.raises(SkillParseError, match="between 0 and 8"):
        book.parse("observe(9)")


@pytest.mark.parametrize("text", [f"noop({NINES})", f"share({NINES}, wood, 1)", "noop(٣)", f"navigate(player {NINES})"])
def test_macrafters_parser_refuses_huge_and_non_ascii_numbers_as_a_parse_error(text: str) -> None:
    with pytest.raises(SkillParseError):
        read_skill(text, MACrafterSkillBook(num_agents=3))


def _yokai_decision(first_answer: str) -> ProAgent:
    env = YOKAI.make_env("9c_2p", YOKAI.default_horizon("9c_2p"))
    model = ScriptedModel([first_answer], respond=answering(yokai_answer))
    agent = ProAgent(AgentConfig(), model, YOKAI, env)
    obs = Observation(0, env.symbolic(env.jit_reset(jax.random.PRNGKey(0))), None, None, 0.0)
    agent.reset(0, 0, obs)
    asyncio.run(agent.act(obs, []))
    return agent


def test_a_yokai_answer_with_5000_nines_is_recorded_as_a_rejection_and_the_decision_goes_on() -> None:
    agent = _yokai_decision(json.dumps({"analysis": "look", "plan": f"observe({NINES})"}))
    first, *rest = agent.last_decision.attempts
    assert first.plan is None and "between 0 and 8" in first.parse_error and len(first.parse_error) < 400
    assert rest and agent.last_decision.skill is not None and agent.stats.parse_failures == 1


def test_a_teammate_named_with_a_huge_number_is_no_prediction_not_an_error() -> None:
    env = YOKAI.make_env("9c_2p", YOKAI.default_horizon("9c_2p"))
    agent = ProAgent(AgentConfig(), ScriptedModel(), YOKAI, env)
    agent.reset(0, 0, Observation(0, env.symbolic(env.jit_reset(jax.random.PRNGKey(0))), None, None, 0.0))
    planner = agent.planner
    planner.teammates, planner.per_teammate = (1, 2), True
    raw = json.dumps({"intention": f"player {NINES}: observe(1); player ٣: observe(2)", "plan": "observe(3)"})
    try:
        out = planner.parse(raw)
    except PlanParseError as exc:  # a refusal would be the planner's own error, never a ValueError
        pytest.fail(f"refused: {exc}")
    assert out.intentions == {} and str(out.plan) == "observe(3)"
