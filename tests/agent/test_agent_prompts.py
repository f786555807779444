"""Prompt sets: every set renders everywhere; broken or unknown sets fail loudly; variants work."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from agent_helpers import overcooked_knowledge

import envs
from proagent.agent.planner import ANALYSIS_MAX_CHARS, Planner
from proagent.agent.prompts import (
    LEVEL_FIELDS,
    PromptSetError,
    available_prompt_sets,
    load_prompt_set,
)
from proagent.domains.overcooked.grounding import ground
from proagent.domains.overcooked.skills import Skill, SkillBook
from proagent.paths import PROMPTS_DIR
from proagent.world.types import TeammateView

OVERCOOKED_PROMPTS = PROMPTS_DIR / "overcooked"

SETS = available_prompt_sets(OVERCOOKED_PROMPTS)
# Sets worded like the proagent set (compact, for small models, has its own tests below; paper in its own file).
FULL_SETS = [s for s in SETS if s not in ("compact", "paper")]  # paper: test_agent_paper_prompt.py
LAYOUTS = list(envs.CLASSIC_LAYOUTS)


def _planner(kitchen, layout: str, seat: int, name: str = "proagent", root: Path = OVERCOOKED_PROMPTS, fmt: str = "json"):
    book = SkillBook.for_kitchen(kitchen)
    return Planner(load_prompt_set(name, root=root), overcooked_knowledge(layout, seat), book, seat, fmt), book


def _facts(kitchen, seat: int, book: SkillBook) -> dict:
    return ground(kitchen, seat, book, TeammateView(1, "pickup(onion)", "up"), 0.0)


MEMORY = [
    {"step": 3, "state": "s", "analysis": "a", "intention": "pickup(dish)", "belief": None, "skill": "pickup(onion)", "outcome": "done"},
    {"step": 7, "state": "s", "analysis": None, "intention": None, "belief": "your teammate actually did deliver_soup()", "skill": "wait(2)", "outcome": "failed: took too long"},
]
FEEDBACK = [{"skill": "deliver_soup()", "reasons": ["you are not holding a soup (you hold nothing)"], "explanation": "Get a soup first."}]


def test_the_shipped_sets_are_found():
    assert {"proagent", "analysis", "plan_only"} <= set(SETS)
    assert "_shared" not in SETS


@pytest.mark.parametrize("name", FULL_SETS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_every_set_renders_for_every_layout_and_seat(first_kitchens, name, layout, seat):
    kitchen = first_kitchens[layout]
    prompts = load_prompt_set(name, OVERCOOKED_PROMPTS)
    planner, book = _planner(kitchen, layout, seat, name)
    knowledge = overcooked_knowledge(layout, seat)
    assert knowledge.layout["role"], f"{layout} seat {seat} has no role text"

    system = planner.system_prompt
    assert f"Layout: {layout}." in system
    assert knowledge.layout["role"] in system
    assert f"Your seat (player {seat})" in system
    for spec in book.specs.values():
        assert f"- {spec.signature}: {knowledge.render(spec.description)}" in system

    facts = _facts(kitchen, seat, book)
    system_msg, user_msg = planner.messages(facts, MEMORY, FEEDBACK)
    assert (system_msg.role, user_msg.role) == ("system", "user")
    assert system_msg.content == system  # static part: identical on every call
    user = user_msg.content
    me = kitchen.players[seat]
    assert f"You (player {seat}) are at [{me.position[0]}, {me.position[1]}] facing up, holding nothing." in user
    assert "its last completed skill was pickup(onion)" in user
    # a retrieved analysis is shown (memory_retrieval "trajectory"); "outcomes" retrieval hands None
    assert "- step 3: you chose pickup(onion) (done); your analysis then: a; you expected your teammate to pickup(dish)" in user
    assert "- step 7: you chose wait(2) (failed: took too long); your teammate actually did deliver_soup()" in user
    assert "Your plan deliver_soup() cannot be done now: you are not holding a soup (you hold nothing). Get a soup first." in user
    assert f"Answer with one JSON object with the keys {', '.join(prompts.fields)}" in user
    for pot in kitchen.map.pots:
        assert f"Pot at [{pot[0]}, {pot[1]}]: empty." in user

    explain = planner.explainer_messages(facts, Skill("deliver_soup"), ["you are not holding a soup (you hold nothing)"])
    assert "You chose deliver_soup(), but it cannot be done now because: you are not holding a soup (you hold nothing)." in explain[1].content

    assert prompts.render("belief.j2", {"mode": "replace", "predicted": "pickup(dish)", "actual": "pickup(onion)"}) == (
        "your teammate actually did pickup(onion)"
    )
    assert prompts.render("belief.j2", {"mode": "annotate", "predicted": "pickup(dish)", "actual": "pickup(onion)"}) == (
        "you predicted pickup(dish) but your teammate actually did pickup(onion)"
    )


@pytest.mark.parametrize("name", FULL_SETS)
def test_every_set_renders_the_text_answer_format(first_kitchens, name):
    kitchen = first_kitchens["cramped_room"]
    planner, book = _planner(kitchen, "cramped_room", 0, name, fmt="text")
    user = planner.messages(_facts(kitchen, 0, book), [], [])[1].content
    fields = load_prompt_set(name, OVERCOOKED_PROMPTS).fields
    assert "Answer in exactly this format:" in user
    assert user.rstrip().endswith("Plan: <exactly one skill for yourself, e.g. pickup(onion)>")
    assert ("Analysis: <" in user) == ("analysis" in fields)
    assert ("Intention: <" in user) == ("intention" in fields)


@pytest.mark.parametrize(
    ("name", "level", "fields"),
    [
        ("proagent", "intention", ("analysis", "intention", "plan")),
        ("analysis", "analysis", ("analysis", "plan")),
        ("plan_only", "plan", ("plan",)),
    ],
)
def test_levels_map_to_fields(first_kitchens, name, level, fields):
    prompts = load_prompt_set(name, OVERCOOKED_PROMPTS)
    assert prompts.level == level
    assert prompts.fields == fields == LEVEL_FIELDS[level]
    kitchen = first_kitchens["cramped_room"]
    planner, book = _planner(kitchen, "cramped_room", 0, name)
    schema = planner.structured_output(book.all_skills()).json_schema
    assert tuple(schema["properties"]) == fields
    assert schema["required"] == list(fields)
    user = planner.messages(_facts(kitchen, 0, book), [], [])[1].content
    assert f"Answer with one JSON object with the keys {', '.join(fields)} " in user
    # demos show exactly the fields of the level (counter_circuit ships demos for both seats)
    kitchen = first_kitchens["counter_circuit"]
    assert overcooked_knowledge("counter_circuit", 0).demos
    system = _planner(kitchen, "counter_circuit", 0, name)[0].system_prompt
    assert "Examples of good decisions:" in system
    assert "\nPlan: " in system
    assert ("\nAnalysis: " in system) == ("analysis" in fields)
    assert ("\nIntention: " in system) == ("intention" in fields)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("seat", [0, 1])
def test_the_compact_set_renders_a_short_state_and_keeps_the_format_in_the_prefix(first_kitchens, layout, seat):
    kitchen = first_kitchens[layout]
    planner, book = _planner(kitchen, layout, seat, "compact")
    knowledge = overcooked_knowledge(layout, seat)
    system = planner.system_prompt
    assert f"Layout {layout}: " in system and knowledge.layout["role"] in system
    for spec in book.specs.values():
        assert f"- {spec.signature}: {knowledge.render(spec.description)}" in system
    # the static answer format sits in the reused prefix, not in each user message
    assert "Answer with one JSON object with the keys intention, plan" in system
    system_msg, user_msg = planner.messages(_facts(kitchen, seat, book), MEMORY, FEEDBACK)
    assert system_msg.content == system
    user = user_msg.content
    me = kitchen.players[seat]
    assert user.startswith(f"Step 0. State: You are at [{me.position[0]}, {me.position[1]}], holding nothing.")
    assert "(last did pickup(onion))" in user
    assert "deliver_soup() cannot be done now: you are not holding a soup (you hold nothing). Choose another skill." in user
    assert "pickup(dish)" not in user and "wait(2)" not in user  # no memory list: a tiny model copies it
    full_user = _planner(kitchen, layout, seat, "proagent")[0].messages(_facts(kitchen, seat, book), MEMORY, FEEDBACK)[1].content
    assert len(user) < 0.4 * len(full_user)


def test_the_compact_set_asks_for_intention_and_plan_without_analysis(first_kitchens):
    prompts = load_prompt_set("compact", OVERCOOKED_PROMPTS)
    assert prompts.fields == ("intention", "plan")
    kitchen = first_kitchens["counter_circuit"]
    planner, book = _planner(kitchen, "counter_circuit", 0, "compact")
    schema = planner.structured_output(book.all_skills()).json_schema
    assert list(schema["properties"]) == ["intention", "plan"]
    assert "Teammate next: pickup(onion)" in planner.system_prompt and "Analysis" not in planner.system_prompt


def test_prompt_toml_fields_must_name_the_plan(prompt_root):
    _make_set(prompt_root, "no_plan", {})
    (prompt_root / "no_plan" / "prompt.toml").write_text('level = "intention"\nfields = ["intention"]\n')
    with pytest.raises(PromptSetError, match="fields must list 'plan'"):
        load_prompt_set("no_plan", root=prompt_root)


def test_structured_output_schema(first_kitchens):
    kitchen = first_kitchens["cramped_room"]
    planner, book = _planner(kitchen, "cramped_room", 0)
    allowed = [Skill("pickup", "onion"), Skill("wait", 3)]
    structured = planner.structured_output(allowed)
    schema = structured.json_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["properties"]["plan"] == {"type": "string", "enum": ["pickup(onion)", "wait(3)"]}
    assert schema["properties"]["analysis"] == {"type": "string", "maxLength": ANALYSIS_MAX_CHARS}
    # the teammate may do anything: the intention enum is every skill, not the allowed ones
    assert schema["properties"]["intention"]["enum"] == [str(s) for s in book.all_skills()]
    assert "wait(20)" in schema["properties"]["intention"]["enum"]
    assert "wait(21)" not in schema["properties"]["intention"]["enum"]


def test_an_unknown_set_lists_the_available_ones():
    with pytest.raises(PromptSetError) as info:
        load_prompt_set("no_such_set", OVERCOOKED_PROMPTS)
    message = str(info.value)
    assert "no_such_set" in message
    for name in SETS:
        assert name in message


# ---- user prompt roots -------------------------------------------------------------------------


@pytest.fixture
def prompt_root(tmp_path: Path) -> Path:
    """A private prompts root holding copies of the shipped sets (variants extend them)."""
    root = tmp_path / "prompts"
    shutil.copytree(OVERCOOKED_PROMPTS, root)
    return root


def _make_set(root: Path, name: str, files: dict[str, str], level: str = "intention") -> None:
    folder = root / name
    folder.mkdir()
    (folder / "prompt.toml").write_text(f'level = "{level}"\n')
    defaults = {
        "planner_system.j2": '{% extends "proagent/planner_system.j2" %}',
        "planner_user.j2": '{% extends "proagent/planner_user.j2" %}',
        "explainer.j2": '{% include "proagent/explainer.j2" %}',
        "belief.j2": '{% include "proagent/belief.j2" %}',
    }
    for filename, text in {**defaults, **files}.items():
        (folder / filename).write_text(text)


def test_a_user_variant_overrides_one_block(first_kitchens, prompt_root):
    _make_set(
        prompt_root,
        "my_variant",
        {"planner_user.j2": '{% extends "proagent/planner_user.j2" %}\n{% block memory %}MY MEMORY: {{ memory | length }} records\n{% endblock %}'},
    )
    assert "my_variant" in available_prompt_sets(prompt_root)
    kitchen = first_kitchens["cramped_room"]
    planner, book = _planner(kitchen, "cramped_room", 0, "my_variant", root=prompt_root)
    user = planner.messages(_facts(kitchen, 0, book), MEMORY, FEEDBACK)[1].content
    assert user.startswith("MY MEMORY: 2 records")
    assert "Recent history" not in user  # the overridden block
    assert "You (player 0) are at [1, 2] facing up" in user  # the inherited blocks
    assert "Your plan deliver_soup() cannot be done now" in user
    assert user.rstrip().endswith('("plan": exactly one skill for yourself).')
    hashes = load_prompt_set("my_variant", root=prompt_root).source_hashes()
    assert "my_variant/planner_user.j2" in hashes and "proagent/planner_user.j2" in hashes


def test_a_misspelt_variable_fails_loudly(first_kitchens, prompt_root):
    _make_set(
        prompt_root,
        "typo",
        {"planner_user.j2": '{% extends "proagent/planner_user.j2" %}\n{% block state %}Step {{ facts.stpe }}{% endblock %}'},
    )
    kitchen = first_kitchens["cramped_room"]
    planner, book = _planner(kitchen, "cramped_room", 0, "typo", root=prompt_root)
    with pytest.raises(PromptSetError) as info:
        planner.messages(_facts(kitchen, 0, book), [], [])
    message = str(info.value)
    assert "typo" in message and "planner_user.j2" in message and "stpe" in message


def test_a_misspelt_top_level_variable_fails_at_construction(first_kitchens, prompt_root):
    _make_set(prompt_root, "typo_system", {"planner_system.j2": "{{ taks }}\n{{ rules }}"})
    with pytest.raises(PromptSetError, match="taks"):
        _planner(first_kitchens["cramped_room"], "cramped_room", 0, "typo_system", root=prompt_root)


def test_a_set_missing_a_template_or_with_a_bad_level_is_rejected(prompt_root):
    _make_set(prompt_root, "bad_level", {}, level="everything")
    with pytest.raises(PromptSetError, match="level"):
        load_prompt_set("bad_level", root=prompt_root)
    _make_set(prompt_root, "incomplete", {})
    (prompt_root / "incomplete" / "explainer.j2").unlink()
    with pytest.raises(PromptSetError, match="explainer.j2"):
        load_prompt_set("incomplete", root=prompt_root)


def test_the_knowledge_reads_the_env_dynamics_not_hand_written_numbers(first_kitchens):
    """task.md, rules.md and the skill descriptions say the env's cook time and reward."""
    from agent_helpers import DOMAIN

    from proagent.agent.prompts import load_knowledge

    env = envs.make("cramped_room", envs.Dynamics(cook_time=7, soup_reward=15.0))
    knowledge = load_knowledge(DOMAIN.knowledge_root, "cramped_room", 0, DOMAIN.knowledge_facts(env))
    assert "cooks for 7 steps" in knowledge.task and "worth 15 points" in knowledge.task
    assert "Cooking takes 7 steps." in knowledge.rules and "20" not in knowledge.rules
    book = SkillBook.for_kitchen(first_kitchens["cramped_room"])
    system = Planner(load_prompt_set("proagent", OVERCOOKED_PROMPTS), knowledge, book, 0, "json").system_prompt
    assert "(15 points for a correct recipe)" in system and "20 points" not in system


def test_a_knowledge_text_naming_an_unknown_setting_fails_loudly(tmp_path):
    from proagent.agent.prompts import load_knowledge

    (tmp_path / "task.md").write_text("Soups cook for {{ cook_tiem }} steps.")
    (tmp_path / "rules.md").write_text("Rules.")
    with pytest.raises(PromptSetError, match="cook_tiem"):
        load_knowledge(tmp_path, "any", 0, {"cook_time": 20})


def test_sets_of_one_folder_share_compiled_templates_and_an_edited_template_is_read_again(prompt_root):
    """The agents of a process share one template environment per prompts folder (each built its
    own and compiled every template again); editing a template still changes the next render."""
    _make_set(prompt_root, "edited", {"explainer.j2": "first {{ x }}"})
    first, second = load_prompt_set("edited", root=prompt_root), load_prompt_set("edited", root=prompt_root)
    assert first.env is second.env
    assert first.render("explainer.j2", {"x": 1}) == "first 1"
    template = prompt_root / "edited" / "explainer.j2"
    template.write_text("second {{ x }}")
    stat = template.stat()
    os.utime(template, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))  # a later edit, whatever the clock's grain
    assert second.render("explainer.j2", {"x": 2}) == "second 2"
