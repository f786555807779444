"""A teacher's answer in the student's answer format: read with the agent's own reader and written as
the JSON that the request's grammar lets the embedded model emit (its properties in sorted order,
each skill one of the schema's, free text within its bound), for the schema shapes the agent sends
in every world; an answer that cannot be written so is dropped and counted, never kept as it was."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from proagent.agent.planner import Planner
from proagent.cli import main
from proagent.finetune.answers import Unrendered, student_answer
from proagent.finetune.dataset import DataFilter, SupervisedPair, render_answers, selection_of
from proagent.llm.scripted import Answer, render
from proagent.llm.types import Message, StructuredOutput
from tests.finetune.world_schemas import WORLDS, world_planner

ANALYSIS = "The pot needs onions."


@cache
def _planner(world: str, prompt: str, teammates: tuple[int, ...] = (1,)) -> Planner:
    return world_planner(world, prompt, teammates)


def _schema(planner: Planner, talk: dict | None = None) -> StructuredOutput:
    return planner.structured_output(planner.book.all_skills(), talk)


def _names(planner: Planner) -> list[str]:
    return [str(skill) for skill in planner.book.all_skills()]


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("teacher_format", ["text", "json"])
def test_a_compact_request_gets_the_intention_and_the_plan_and_nothing_else(world: str, teacher_format: str):
    """The embedded model's default set asks for the intention and the plan; a teacher's analysis,
    in lines (the Overcooked planner) or in JSON (the other worlds' planners), is left out."""
    planner = _planner(world, "compact", (1,) if world != "macrafter" else (1, 2))
    names = _names(planner)
    if world == "macrafter":  # three crafters: one intention per teammate, an object of the schema
        intention = {"player 1": names[12], "player 2": names[-2]}
        expected = f'{{"intention": {{"player 1": "{names[12]}", "player 2": "{names[-2]}"}}, "plan": "{names[-1]}"}}'
    else:
        intention = names[1]
        expected = f'{{"intention": "{names[1]}", "plan": "{names[-1]}"}}'
    teacher = render(Answer(ANALYSIS, intention, names[-1]), teacher_format)
    rendered = student_answer(teacher, _schema(planner))
    assert rendered == expected
    read = planner.parse(rendered)  # the agent reads back what the teacher meant
    assert str(read.plan) == names[-1]
    if world == "macrafter":
        assert {seat: str(skill) for seat, skill in read.intentions.items()} == {1: names[12], 2: names[-2]}
    else:
        assert str(read.intention) == names[1]


@pytest.mark.parametrize("world", WORLDS)
def test_a_proagent_request_gets_the_analysis_first_and_a_message_where_the_agent_may_speak(world: str):
    planner = _planner(world, "proagent")
    names = _names(planner)
    teacher = render(Answer(ANALYSIS, names[2], names[0], message="I take the left side."), "text")
    rendered = student_answer(teacher, _schema(planner, {"may_send": True}))
    assert rendered == (
        f'{{"analysis": "{ANALYSIS}", "intention": "{names[2]}", "message": "I take the left side.", '
        f'"plan": "{names[0]}"}}'
    )
    silent = render(Answer(ANALYSIS, names[2], names[0]), "json")  # no message: said nothing
    assert json.loads(student_answer(silent, _schema(planner, {"may_send": True})))["message"] == ""


def test_a_skill_written_loosely_becomes_the_schemas_own_value_and_the_agents_reading_wins():
    cook = _planner("overcooked", "compact")
    loose = "Analysis: ok\nIntention: they will PICKUP( 'dish' ) next\nPlan: Pickup(Onion)"
    assert student_answer(loose, _schema(cook)) == '{"intention": "pickup(dish)", "plan": "pickup(onion)"}'
    # the plan the agent read while playing is what the answer is taught as
    assert json.loads(student_answer(loose, _schema(cook), plan="wait(2)"))["plan"] == "wait(2)"
    crafter = _planner("macrafter", "compact", (1, 2))
    spaced = "Intention: player 2: noop(1); player 1: MOVE(left,1)\nPlan: move(left,2)"
    assert json.loads(student_answer(spaced, _schema(crafter))) == {
        "intention": {"player 1": "move(left, 1)", "player 2": "noop(1)"},
        "plan": "move(left, 2)",
    }


def test_a_request_without_schema_keeps_the_answer_as_written():
    text = "Analysis: fine\nIntention: pickup(dish)\nPlan: pickup(onion)"
    assert student_answer(text, None) == text


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("I am not sure what to do.", "no plan the agent can read"),
        ("Intention: pickup(dish)\nPlan: chop(onion)", "plan not a skill the schema allows"),
        ("Intention: nothing useful\nPlan: pickup(onion)", "intention not a skill the schema allows"),
        (f"Analysis: {'x' * 241}\nIntention: pickup(dish)\nPlan: pickup(onion)", "analysis longer than the schema's"),
    ],
)
def test_an_answer_the_schema_cannot_hold_is_refused_with_its_reason(answer: str, reason: str):
    schema = _schema(_planner("overcooked", "proagent"))
    with pytest.raises(Unrendered) as refused:
        student_answer(answer, schema)
    assert refused.value.reason.startswith(reason)


def test_an_illegal_plan_is_refused_where_the_schema_lists_only_the_legal_skills():
    planner = _planner("overcooked", "compact")
    legal = planner.structured_output([skill for skill in planner.book.all_skills() if skill.name == "wait"])
    with pytest.raises(Unrendered, match="plan not a skill"):
        student_answer("Intention: wait(1)\nPlan: deliver_soup()", legal)


def _pair(answer: str, structured: StructuredOutput | None, accepted: bool = True) -> SupervisedPair:
    return SupervisedPair(
        messages=(Message(role="user", content="state"),),
        answer=answer,
        structured=structured,
        world="overcooked/counter_circuit",
        run="run",
        episode=0,
        step=0,
        score=0.0,
        accepted=accepted,
    )


def test_the_set_drops_and_counts_what_it_cannot_render_and_records_the_format():
    schema = _schema(_planner("overcooked", "compact"))
    pairs = [
        _pair("Analysis: a\nIntention: pickup(dish)\nPlan: pickup(onion)", schema),
        _pair("Analysis: b\nIntention: pickup(dish)\nPlan: pickup(onion)", schema),  # taught the same: a duplicate
        _pair("Intention: pickup(dish)\nPlan: chop(onion)", schema),
        _pair("no idea", schema),
        _pair("no idea either", schema, accepted=False),  # filtered before rendering: not counted
        _pair("Plan: wait(1)", None),
    ]
    kept, selection = selection_of([Path("run")], pairs, DataFilter())
    assert [pair.answer for pair in kept] == ['{"intention": "pickup(dish)", "plan": "pickup(onion)"}', "Plan: wait(1)"]
    answers = selection.answers
    assert answers is not None and answers.formats == {"json": 2, "text": 1}
    assert answers.dropped == {"no plan the agent can read": 1, "plan not a skill the schema allows": 1}
    assert selection.pairs_read == 6 and selection.worlds_kept == {"overcooked/counter_circuit": 2}
    rendered, rendering = render_answers(pairs[:1])
    assert rendered[0].answer.startswith('{"intention"') and rendering.dropped == {}


def test_a_run_recorded_without_answer_schemas_is_one_line_and_exit_2(tmp_path: Path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    attempt = {"messages": [{"role": "user", "content": "state"}], "response": "Plan: wait(1)", "plan": "wait(1)"}
    (run / "config.json").write_text(json.dumps({"domain": "overcooked", "layout": "counter_circuit"}))
    (run / "episodes.jsonl").write_text('{"episode": 0, "score": 0}\n')
    (run / "trace.jsonl").write_text(json.dumps({"episode": 0, "decision": {"attempts": [attempt]}}) + "\n")
    assert main(["finetune", str(run), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "without each request's answer schema" in err and "play it again" in err
    assert not (tmp_path / "out").exists()


def test_the_analysis_is_held_to_the_students_own_bound():
    """A capable teacher's request allows 240 characters of analysis; the embedded student's allows 80."""
    schema = _schema(_planner("overcooked", "proagent"))
    long = f"Analysis: {'x' * 100}\nIntention: pickup(dish)\nPlan: pickup(onion)"
    assert json.loads(student_answer(long, schema))["analysis"] == "x" * 100
    with pytest.raises(Unrendered, match="analysis longer than the schema's 80 characters"):
        student_answer(long, schema, analysis_max_chars=80)
    _, rendering = render_answers([_pair(long, schema)])
    assert rendering.dropped == {"analysis longer than the schema's 80 characters": 1}
    assert rendering.analysis_max_chars == 80
