"""Planner parsing: what real models answer, from clean JSON to labelled prose, and what must fail."""

from __future__ import annotations

import pytest
from agent_helpers import overcooked_knowledge

from proagent.agent.planner import ANALYSIS_MAX_CHARS, Planner, PlanParseError
from proagent.agent.prompts import load_prompt_set
from proagent.domains.overcooked.skills import Skill, SkillBook
from proagent.paths import PROMPTS_DIR

OVERCOOKED_PROMPTS = PROMPTS_DIR / "overcooked"


@pytest.fixture(scope="module")
def planner() -> Planner:
    book = SkillBook(("onion", "dish", "soup"))
    return Planner(load_prompt_set("proagent", OVERCOOKED_PROMPTS), overcooked_knowledge("cramped_room", 0), book, 0, "json")


def _fields(out):
    return (out.analysis, out.intention_text, out.intention, out.plan)


ONION = Skill("pickup", "onion")
DISH = Skill("pickup", "dish")
PUT = Skill("put_onion_in_pot")


@pytest.mark.parametrize(
    "raw",
    [
        '{"analysis": "The pot needs onions.", "intention": "pickup(dish)", "plan": "pickup(onion)"}',
        '```json\n{"analysis": "The pot needs onions.", "intention": "pickup(dish)", "plan": "pickup(onion)"}\n```',
        'Sure! Here is my answer:\n{"analysis": "The pot needs onions.", "intention": "pickup(dish)", "plan": "pickup(onion)"}\nGood luck!',
        '{"Analysis": "The pot needs onions.", "Teammate Intention": "pickup(dish)", "Plan": "pickup(onion)"}',
        '{"analysis": "The pot needs onions.", "teammate_intention": "pickup(dish)", "plan": "pickup(onion)"}',
        '{"analysis": "The pot needs onions.", "intention": "pickup(\'dish\')", "plan": "pickup(\\"onion\\")"}',
    ],
    ids=["json", "fenced", "prose", "capitalised-keys", "teammate_intention", "quoted-args"],
)
def test_json_answers(planner, raw):
    out = planner.parse(raw)
    assert out.analysis == "The pot needs onions."
    assert out.plan == ONION
    assert out.intention == DISH
    assert out.intention_text in ("pickup(dish)", "pickup('dish')")
    assert out.raw == raw


@pytest.mark.parametrize(
    "raw",
    [
        "Analysis: The pot needs onions.\nIntention: pickup(dish)\nPlan: pickup(onion)",
        "ANALYSIS: The pot needs onions.\nINTENTION: pickup(dish)\nPLAN: pickup(onion)",
        "analysis: The pot needs onions.\nintention: pickup(dish)\nplan: pickup(onion)",
        "**Analysis:** The pot needs onions.\n**Intention:** pickup(dish)\n**Plan:** pickup(onion)",
        "**Analysis**: The pot needs onions.\n**Intention**: pickup(dish)\n**Plan**: pickup(onion)",
        "- Analysis: The pot needs onions.\n- Intention: pickup(dish)\n- Plan: pickup(onion)",
        "* Analysis: The pot needs onions.\n* Intention: pickup(dish)\n* Plan: pickup(onion)",
        "1. Analysis: The pot needs onions.\n2. Intention: pickup(dish)\n3. Plan: pickup(onion)",
        "Let me think.\n\nAnalysis: The pot needs onions.\nTeammate intention: pickup(dish)\nPlan: pickup(onion)\n\nThat is all.",
        "Analysis:\nThe pot needs onions.\nIntention:\npickup(dish)\nPlan:\npickup(onion)",
        "Analysis: The pot needs onions.\nIntention: pickup('dish')\nPlan: pickup(\"onion\")",
        "Analysis: The pot needs onions.\nIntention: Pickup(Dish)\nPlan: PICKUP( onion )",
    ],
    ids=[
        "labels",
        "upper",
        "lower",
        "bold-inside",
        "bold-outside",
        "dash-list",
        "star-list",
        "numbered-list",
        "prose-around",
        "value-on-next-line",
        "quoted-args",
        "mixed-case-skill",
    ],
)
def test_labelled_answers(planner, raw):
    out = planner.parse(raw)
    assert out.analysis == "The pot needs onions."
    assert out.plan == ONION
    assert out.intention == DISH
    assert out.raw == raw


@pytest.mark.parametrize(
    ("raw", "plan"),
    [
        ("Plan: put_onion_in_pot", PUT),
        ('{"plan": "deliver_soup"}', Skill("deliver_soup")),
        ("Plan: wait", Skill("wait", 1)),
        ("Plan: wait(7)", Skill("wait", 7)),
        ("Plan: `fill_dish_with_soup()`", Skill("fill_dish_with_soup")),
        ("Plan: I will pickup(dish) now.", DISH),
        ("I should pickup(dish).", DISH),  # no labels at all: the one skill call in the text
    ],
    ids=["no-parens", "json-no-parens", "bare-wait", "wait-n", "backticks", "sentence", "unlabelled"],
)
def test_loose_plans(planner, raw, plan):
    out = planner.parse(raw)
    assert out.plan == plan
    assert out.intention is None


def test_an_unparseable_intention_is_kept_as_text(planner):
    out = planner.parse('{"analysis": "a", "intention": "it will go get onions", "plan": "pickup(dish)"}')
    assert out.plan == DISH
    assert out.intention is None
    assert out.intention_text == "it will go get onions"


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "I am not sure what to do.",
        '{"analysis": "the pot is empty", "intention": "pickup(onion)"}',
        "Analysis: the pot is empty.\nIntention: pickup(onion)",
        "Analysis: the pot is empty.\nPlan:",
        '{"plan": null}',
        "Plan: chop(onion)",
        '{"plan": "cook_soup()"}',
        "Plan: pickup(tomato)",
        "Plan: pickup()",
        "Plan: wait(50)",
        "Plan: wait(0)",
        '{"plan": "wait(21)"}',
    ],
    ids=[
        "empty",
        "no-plan-prose",
        "json-no-plan",
        "labels-no-plan",
        "empty-plan",
        "null-plan",
        "unknown-skill",
        "json-unknown-skill",
        "unknown-item",
        "missing-item",
        "wait-50",
        "wait-0",
        "wait-21",
    ],
)
def test_malformed_answers_raise_with_the_raw_text(planner, raw):
    with pytest.raises(PlanParseError) as info:
        planner.parse(raw)
    assert info.value.raw == raw
    assert str(info.value)  # a message the feedback can show


def test_the_intention_is_never_taken_as_the_plan(planner):
    """An answer with a teammate intention but no plan must not make the agent copy its teammate."""
    raw = "Analysis: the pot is empty.\nIntention: pickup(onion)"
    with pytest.raises(PlanParseError):
        planner.parse(raw)


def test_parse_error_messages_say_what_is_wrong(planner):
    with pytest.raises(PlanParseError, match="no plan"):
        planner.parse("nothing to see")
    with pytest.raises(PlanParseError, match="between 1 and 20"):
        planner.parse("Plan: wait(50)")
    with pytest.raises(PlanParseError, match="unknown skill 'chop'"):
        planner.parse("Plan: chop(onion)")


def test_structured_output_restricts_the_plan(planner):
    allowed = [ONION, Skill("wait", 1), Skill("wait", 2)]
    structured = planner.structured_output(allowed)
    assert structured.name == "proagent_plan"
    props = structured.json_schema["properties"]
    assert props["plan"]["enum"] == ["pickup(onion)", "wait(1)", "wait(2)"]
    assert props["analysis"]["maxLength"] == ANALYSIS_MAX_CHARS == 240
    assert props["analysis"]["type"] == "string"
    assert structured.json_schema["required"] == ["analysis", "intention", "plan"]
    # every enum value parses back to the skill it names
    for name in props["intention"]["enum"]:
        assert str(planner.parse(f'{{"plan": "{name}"}}').plan) == name


def test_plan_only_schema_has_only_the_plan():
    book = SkillBook(("onion", "dish", "soup"))
    planner = Planner(load_prompt_set("plan_only", OVERCOOKED_PROMPTS), overcooked_knowledge("cramped_room", 1), book, 1, "json")
    schema = planner.structured_output(book.all_skills()).json_schema
    assert list(schema["properties"]) == ["plan"]
    assert schema["required"] == ["plan"]


def test_with_several_teammates_the_answer_predicts_each_one():
    """Three or more agents: the schema asks for one intention per teammate; both formats parse."""
    book = SkillBook(("onion", "dish", "soup"))
    planner = Planner(load_prompt_set("proagent", OVERCOOKED_PROMPTS), overcooked_knowledge("cramped_room", 0), book, 0, "json", teammates=(1, 2))
    schema = planner.structured_output(book.all_skills()).json_schema["properties"]["intention"]
    assert schema["type"] == "object" and schema["required"] == ["player 1", "player 2"]
    as_json = planner.parse('{"intention": {"player 1": "pickup(dish)", "player 2": "wait(3)"}, "plan": "pickup(onion)"}')
    assert as_json.intentions == {1: Skill("pickup", "dish"), 2: Skill("wait", 3)} and as_json.plan == Skill("pickup", "onion")
    as_text = planner.parse("Intention: player 2: deliver_soup(); player 1: bogus()\nPlan: wait(1)")
    assert as_text.intentions == {2: Skill("deliver_soup"), 1: None} and as_text.plan == Skill("wait", 1)
    single = Planner(load_prompt_set("proagent", OVERCOOKED_PROMPTS), overcooked_knowledge("cramped_room", 0), book, 0, "json", teammates=(1,))
    assert single.structured_output(book.all_skills()).json_schema["properties"]["intention"]["type"] == "string"
    assert single.parse('{"intention": "pickup(dish)", "plan": "wait(1)"}').intentions == {}
