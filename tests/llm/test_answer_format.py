"""The loopback responders' one answer formatter: JSON when asked for, labelled lines otherwise."""

from __future__ import annotations

import json

from proagent.llm.answer_format import format_answer, wants_json


def test_a_schema_or_the_prompts_words_ask_for_json():
    assert wants_json({"response_format": {}}, "")
    assert wants_json({}, "... Answer with one JSON object ...")
    assert not wants_json({}, "Answer in three lines")


def test_json_keeps_per_teammate_intentions_as_an_object_and_adds_a_message_only_when_given():
    text = format_answer({"response_format": {}}, "", "a", {"player 1": "push(0)", "player 2": "wait(1)"}, "push(0)", "all on 0")
    assert json.loads(text) == {"analysis": "a", "intention": {"player 1": "push(0)", "player 2": "wait(1)"}, "plan": "push(0)", "message": "all on 0"}
    assert "message" not in json.loads(format_answer({"response_format": {}}, "", "a", "wait(1)", "wait(1)"))


def test_text_flattens_per_teammate_intentions_and_ends_with_the_message():
    text = format_answer({}, "", "a", {"player 1": "push(0)", "player 2": "wait(1)"}, "push(0)", "all on 0")
    assert text == "Analysis: a\nIntention: player 1: push(0); player 2: wait(1)\nPlan: push(0)\nMessage: all on 0"
    assert format_answer({}, "", "a", "wait(1)", "wait(1)") == "Analysis: a\nIntention: wait(1)\nPlan: wait(1)"
