"""Belief probes in the agent core (agent/probe.py): the untrusted answer is bounded and cleaned,
scored against the truth split into seen and unseen items, and a world without probes is refused
before anything runs."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from proagent.agent.config import AgentConfig
from proagent.agent.probe import BeliefProber, check_probe, parse_beliefs, probe_schema, probe_summary, score_beliefs
from proagent.agent.prompts import PromptSetError
from proagent.domains import get_domain
from proagent.world.probes import UNKNOWN, ProbeQuestion

QUESTION = ProbeQuestion(turn=3, items=("0", "1", "2", "3"), values=("red", "green", "blue"), seen=frozenset({"0", "1"}))
TRUTH = {"0": "red", "1": "green", "2": "blue", "3": "red"}


def test_a_json_answer_is_read_item_by_item() -> None:
    answers, invalid = parse_beliefs('{"0": "red", "1": "Green", "2": "blue", "3": "unknown"}', QUESTION)
    assert answers == {"0": "red", "1": "green", "2": "blue", "3": UNKNOWN} and invalid == 0


@pytest.mark.parametrize(
    ("text", "expected", "invalid"),
    [
        ("0: red\n1=green\nmore words", {"0": "red", "1": "green"}, 0),  # not JSON: still read
        ('{"0": "red", "0": "blue"}', {"0": "red"}, 1),  # the first value wins: no hedging
        ('{"9": "red", "1": "orange", "2": "<b>blue</b>"}', {}, 2),  # no such card, no such colour; tags are no value
        ("<script>alert(1)</script>", {}, 0),
        ("", {}, 0),
    ],
)
def test_a_hostile_answer_is_cleaned(text: str, expected: dict[str, str], invalid: int) -> None:
    answers, dropped = parse_beliefs(text, QUESTION)
    assert answers == {**dict.fromkeys(QUESTION.items, UNKNOWN), **expected} and dropped == invalid
    assert set(answers.values()) <= {*QUESTION.values, UNKNOWN}


def test_accuracy_is_split_into_seen_and_unseen_and_unknown_is_never_right() -> None:
    turn = score_beliefs(12, QUESTION, {"0": "red", "1": "blue", "2": "blue", "3": UNKNOWN}, 1, TRUTH)
    assert (turn.seen_correct, turn.seen_total, turn.unseen_correct, turn.unseen_total) == (1, 2, 1, 2)
    assert turn.seen_accuracy == 0.5 and turn.unseen_accuracy == 0.5 and turn.invalid == 1
    nothing = score_beliefs(12, QUESTION, dict.fromkeys(QUESTION.items, UNKNOWN), 0, {k: UNKNOWN for k in TRUTH})
    assert nothing.seen_accuracy == nothing.unseen_accuracy == 0.0


def test_the_summary_averages_only_turns_that_had_such_items() -> None:
    first = score_beliefs(0, ProbeQuestion(0, ("0",), ("red",), frozenset()), {"0": "red"}, 0, {"0": "red"})
    later = score_beliefs(8, QUESTION, {"0": "red", "1": "green", "2": "red", "3": "red"}, 0, TRUTH)
    summary = probe_summary([first, later])
    assert summary["belief_probes"] == 2 and summary["belief_seen_accuracy"] == 1.0  # the first turn had no seen card
    assert summary["belief_unseen_accuracy"] == pytest.approx((1.0 + 0.5) / 2)
    assert [t["turn"] for t in summary["belief_by_turn"]] == [0, 3]
    assert probe_summary([])["belief_seen_accuracy"] is None


def test_the_schema_allows_only_the_items_and_values() -> None:
    schema = probe_schema(QUESTION).json_schema
    assert schema["required"] == list(QUESTION.items) and schema["additionalProperties"] is False
    assert schema["properties"]["2"]["enum"] == ["red", "green", "blue", UNKNOWN]


def test_a_forced_probe_offers_no_unknown_and_reads_one_as_invalid() -> None:
    schema = probe_schema(QUESTION, forced=True).json_schema
    assert schema["properties"]["2"]["enum"] == ["red", "green", "blue"]
    answers, invalid = parse_beliefs('{"0": "red", "1": "unknown", "2": "blue"}', QUESTION, forced=True)
    assert answers == {"0": "red", "1": UNKNOWN, "2": "blue", "3": UNKNOWN} and invalid == 1  # left out or refused: unknown


def test_a_forced_probe_asks_for_a_guess_and_the_default_one_allows_unknown() -> None:
    yokai = get_domain("yokai")
    env = yokai.make_env("9c_2p", 40)
    first = env.symbolic(env.reset(_key()))
    facts = yokai.ground(first, 0, yokai.skill_book(first), [], 0.0)
    probes = yokai.capabilities.belief_probes
    assert probes is not None
    question = probes.question(env, first, 0)
    assert question is not None
    (forced,) = BeliefProber(probes, env, yokai.prompts_root, "beliefs", 0, 100, forced=True).messages(facts, question)
    (default,) = BeliefProber(probes, env, yokai.prompts_root, "beliefs", 0, 100).messages(facts, question)
    assert '"8": "<red|green|blue>"' in forced.content and "|unknown" not in forced.content and "best guess" in forced.content
    assert '"8": "<red|green|blue|unknown>"' in default.content and "best guess" not in default.content


def test_a_forced_probe_without_a_probe_is_refused() -> None:
    with pytest.raises(ValidationError, match="probe_forced .* only applies with belief_probe"):
        AgentConfig(probe_forced=True)


def test_a_world_without_probes_or_a_missing_template_is_refused() -> None:
    overcooked = get_domain("overcooked")
    env = overcooked.make_env("cramped_room", 10)
    with pytest.raises(PromptSetError, match="offers no belief probes"):
        check_probe(overcooked, env, "beliefs", env.symbolic(env.reset(_key())), 0)
    yokai = get_domain("yokai")
    env = yokai.make_env("9c_2p", 40)
    first = env.symbolic(env.reset(_key()))
    check_probe(yokai, env, "beliefs", first, 0)
    with pytest.raises(PromptSetError, match="no belief probe template 'nosuch'"):
        check_probe(yokai, env, "nosuch", first, 0)


def _key():
    import jax

    return jax.random.PRNGKey(0)
