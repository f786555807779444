"""The Verificator: precondition failures are explained and fed back; re-plans are bounded.

All decisions here are made on the cramped_room reset state: player 0 at (1,2) facing up with
empty hands, so ``put_onion_in_pot()`` fails ("not holding an onion") and ``pickup(onion)`` is fine.
"""

from __future__ import annotations

import pytest
from agent_helpers import act, answer, make_agent

from envs import Action
from proagent.llm.types import LLMResponseError
from tests.support.scripted import ScriptedModel

NOT_HOLDING = "you are not holding an onion (you hold nothing)"
NO_SOUP = "you are not holding a soup (you hold nothing)"


@pytest.fixture(scope="module")
def start(cramped):
    import jax

    return cramped.symbolic(cramped.jit_reset(jax.random.PRNGKey(0)))


def _decide(cramped, start, model, **config):
    agent = make_agent(cramped, model, **config)
    action = act(agent, start, [], None, 0.0)
    return agent, action


def test_a_failed_precondition_is_explained_then_replanned(cramped, start):
    model = ScriptedModel(
        [
            answer("put_onion_in_pot()", analysis="I put an onion in."),
            "You hold nothing, so there is no onion to put in the pot.",
            answer("pickup(onion)", analysis="Get an onion first."),
        ]
    )
    agent, action = _decide(cramped, start, model)
    assert len(model.calls) == 3
    plan1, explain, plan2 = model.calls

    # the explainer: same system prompt, the failure reasons in the user turn, short and unconstrained
    assert explain.messages[0] == plan1.messages[0]
    assert f"You chose put_onion_in_pot(), but it cannot be done now because: {NOT_HOLDING}." in explain.messages[1].content
    assert explain.structured is None
    assert explain.max_tokens == agent.config.explain_max_tokens
    assert plan1.structured is not None and plan1.max_tokens == agent.config.max_tokens

    # the re-plan: the feedback names the failed skill, the reasons and the explanation
    assert "cannot be done now" not in plan1.messages[1].content
    feedback = (
        f"Your plan put_onion_in_pot() cannot be done now: {NOT_HOLDING}. "
        "You hold nothing, so there is no onion to put in the pot. Choose another skill."
    )
    assert feedback in plan2.messages[1].content

    decision = agent.last_decision
    assert decision.skill == "pickup(onion)"
    assert decision.fallback is False
    assert decision.llm_calls == 3
    assert decision.analysis == "Get an onion first."
    assert [a.plan for a in decision.attempts] == ["put_onion_in_pot()", "pickup(onion)"]
    assert decision.attempts[0].failures == [NOT_HOLDING]
    assert decision.attempts[0].explanation == "You hold nothing, so there is no onion to put in the pot."
    assert decision.attempts[1].failures == []
    assert decision.attempts[0].messages == [m.model_dump() for m in plan1.messages]
    assert agent.stats.rejections == 1
    assert agent.stats.fallbacks == 0
    assert agent.stats.llm_calls == 3
    assert str(agent.skill) == "pickup(onion)"
    assert action == Action.UP  # towards the left onion dispenser


def test_after_max_replans_the_agent_waits_one_step(cramped, start):
    model = ScriptedModel(
        [
            answer("put_onion_in_pot()"),
            "No onion.",
            answer("deliver_soup()"),
            "No soup.",
            answer("put_onion_in_pot()"),
            "Still no onion.",
        ]
    )
    agent, action = _decide(cramped, start, model, max_replans=2)
    assert len(model.calls) == 6 and model.remaining == 0
    decision = agent.last_decision
    assert decision.fallback is True
    assert decision.skill == "wait(1)"
    assert decision.analysis is None and decision.intention is None
    assert len(decision.attempts) == 3
    assert [a.plan for a in decision.attempts] == ["put_onion_in_pot()", "deliver_soup()", "put_onion_in_pot()"]
    assert agent.stats.rejections == 3
    assert agent.stats.fallbacks == 1
    assert agent.stats.decisions == 1
    assert action == Action.STAY
    # feedback accumulates: the last planner call lists both earlier failures, in order
    last_user = model.calls[4].messages[1].content
    first = last_user.index(f"Your plan put_onion_in_pot() cannot be done now: {NOT_HOLDING}. No onion.")
    second = last_user.index(f"Your plan deliver_soup() cannot be done now: {NO_SOUP}. No soup.")
    assert first < second
    # the fallback is remembered like any decision
    record = agent.memory.last()
    assert (record.skill, record.analysis, record.outcome) == ("wait(1)", None, "running")


def test_zero_replans_means_one_attempt(cramped, start):
    model = ScriptedModel([answer("deliver_soup()"), "No soup."])
    agent, _ = _decide(cramped, start, model, max_replans=0)
    assert len(model.calls) == 2
    assert agent.last_decision.fallback is True
    assert agent.stats.rejections == 1


def test_without_the_verificator_a_bad_plan_is_accepted(cramped, start):
    model = ScriptedModel([answer("put_onion_in_pot()")])
    agent, action = _decide(cramped, start, model, verificator=False)
    assert len(model.calls) == 1
    decision = agent.last_decision
    assert decision.skill == "put_onion_in_pot()"
    assert decision.fallback is False
    assert decision.attempts[0].failures == []
    assert agent.stats.rejections == 0
    # the controller still heads for the pot (its target), from (1,2) the first move is up or right
    assert action in (Action.UP, Action.RIGHT)


def test_a_bad_plan_without_verificator_fails_at_the_next_step(cramped, start):
    """The running-skill judge still sees the unmet precondition and asks again."""
    model = ScriptedModel([answer("put_onion_in_pot()"), answer("wait(5)")])
    agent, _ = _decide(cramped, start, model, verificator=False)
    act(agent, start, [], int(Action.STAY), 0.0)
    assert len(model.calls) == 2
    assert agent.stats.skills_failed == 1
    assert agent.stats.skills_done == 0  # its done-test (hands empty) held from the start: nothing was done
    first = agent.memory.recent(2)[0]
    assert first.skill == "put_onion_in_pot()"
    assert first.outcome == f"failed: {NOT_HOLDING}"


def test_parse_failures_count_as_attempts_and_are_fed_back(cramped, start):
    model = ScriptedModel(["I am not sure.", answer("wait(20)"), answer("wait(50)"), answer("pickup(dish)")])
    agent, _ = _decide(cramped, start, model, max_replans=3)
    assert len(model.calls) == 2  # no explainer call for an unreadable answer
    assert all(call.structured is not None for call in model.calls)
    decision = agent.last_decision
    assert decision.skill == "wait(20)"  # the second answer was fine
    assert decision.fallback is False
    assert len(decision.attempts) == 2
    bad = decision.attempts[0]
    assert bad.plan is None and bad.response == "I am not sure."
    assert "no plan" in bad.parse_error
    assert bad.explanation is None
    user = model.calls[1].messages[1].content
    assert f"Your plan (unreadable answer) cannot be done now: {bad.parse_error}. Choose another skill." in user
    assert agent.stats.parse_failures == 1
    assert agent.stats.rejections == 0
    assert model.remaining == 2


def test_parse_failures_alone_lead_to_the_fallback(cramped, start):
    model = ScriptedModel(["???", '{"plan": "wait(50)"}'])
    agent, action = _decide(cramped, start, model, max_replans=1)
    assert len(model.calls) == 2
    decision = agent.last_decision
    assert decision.fallback is True and decision.skill == "wait(1)"
    assert agent.stats.parse_failures == 2
    assert agent.stats.fallbacks == 1
    assert "between 1 and 20" in decision.attempts[1].parse_error
    assert "Your plan (unreadable answer) cannot be done now: the answer has no plan" in model.calls[1].messages[1].content
    assert action == Action.STAY


def test_legal_only_offers_just_the_skills_that_can_run(cramped, start):
    model = ScriptedModel([answer("pickup(onion)")])
    _decide(cramped, start, model, legal_only=True)
    enum = model.calls[0].structured.json_schema["properties"]["plan"]["enum"]
    assert enum == ["pickup(onion)", "pickup(dish)"] + [f"wait({n})" for n in range(1, 21)]


def test_the_text_format_sends_no_schema(cramped, start):
    model = ScriptedModel(["Analysis: nothing yet.\nIntention: pickup(onion)\nPlan: pickup(dish)"])
    agent, _ = _decide(cramped, start, model, answer_format="text")
    assert model.calls[0].structured is None
    assert "Answer in exactly this format:" in model.calls[0].messages[1].content
    assert agent.last_decision.skill == "pickup(dish)"
    assert agent.last_decision.intention == "pickup(onion)"


def test_llm3_bounds_model_text_and_an_unreadable_round_ends_the_dialogue(cramped, start):
    """Model text is untrusted: a round's runaway answer is cut before it is re-sent; a round that
    cannot be read ends the dialogue (kept so far), and the re-plan still gets the checks' reasons."""
    runaway = "x" * 5000
    model = ScriptedModel(
        [
            answer("put_onion_in_pot()"),
            runaway,  # preconditions check
            LLMResponseError("no choices"),  # double-check
            answer("pickup(onion)"),
        ]
    )
    agent, _ = _decide(cramped, start, model, verificator="llm3", carried_text_max_chars=100)
    assert len(model.calls) == 4
    resent = model.calls[2].messages  # the double-check request carries round 1's answer, bounded
    assert [m.role for m in resent] == ["system", "user", "assistant", "user"] and len(resent[2].content) <= 100
    (rejected, accepted) = agent.last_decision.attempts
    assert [r.round for r in rejected.verification] == ["preconditions"] and rejected.explanation is None
    feedback = f"Your plan put_onion_in_pot() cannot be done now: {NOT_HOLDING}. Choose another skill."
    assert feedback in accepted.messages[1]["content"]
    assert agent.last_decision.skill == "pickup(onion)"
