"""End to end: full 400-step cramped_room episodes with a competent scripted LLM and a stay
partner; the trace and episode record agree; a cached run replays without the model."""

from __future__ import annotations

from proagent.contract import seat_team
from proagent.domains.overcooked import OvercookedDomain

DOMAIN = OvercookedDomain()

import json

import pytest
from agent_helpers import StayPartner, act, make_agent, run, sensible_policy

from envs import EventKind
from proagent.agent.records import Attempt, Decision
from proagent.llm.cache import CachedModel
from proagent.llm.types import LLMError
from proagent.runner.episode import run_episode
from proagent.runner.records import EpisodeRecord
from tests.support.scripted import ScriptedModel

TRACE_KEYS = {"episode", "step", "state", "actions", "events", "reward", "score", "skill", "decision", "belief", "seat", "kitchen"}
FIRST_KEYS, LAST_KEYS = {"terrain"}, {"final"}  # once per episode, for the replay page


def _play(env, model, seed: int = 0, **config):
    agent = make_agent(env, model, seed=seed, legal_only=True, **config)
    lines: list[dict] = []
    record = run(run_episode(env, DOMAIN, seat_team(agent, 0, [StayPartner()]), 0, seed, 0, trace=lines.append))
    return agent, record, lines


@pytest.fixture(scope="module")
def episode(cramped):
    model = ScriptedModel(respond=sensible_policy)
    agent, record, lines = _play(cramped, model)
    return model, agent, record, lines


def test_the_team_delivers_soups(episode):
    _, _, record, lines = episode
    assert record.score >= 40
    assert record.metric("soups") >= 2
    assert record.metric("wrong_soups") == 0
    assert record.score == 20 * record.metric("soups")
    assert record.steps == 400 == len(lines)
    assert record.layout == "cramped_room" and record.partner == "stay" and record.seat == 0


def test_trace_records_have_the_documented_keys(episode):
    _, _, _, lines = episode
    assert [line["step"] for line in lines] == list(range(400))
    decision_keys = set(Decision.model_fields)
    attempt_keys = set(Attempt.model_fields)
    for line in lines:
        extra = (FIRST_KEYS if line["step"] == 0 else set()) | (LAST_KEYS if line["step"] == 399 else set())
        assert set(line) == TRACE_KEYS | extra
        assert line["episode"] == 0
        assert len(line["actions"]) == 2 and line["actions"][1] == "stay"
        assert line["state"].splitlines()[4].startswith(f"t={line['step']}/400")
        json.dumps(line)  # plain JSON, no default= needed
        if line["decision"] is not None:
            assert set(line["decision"]) == decision_keys
            for attempt in line["decision"]["attempts"]:
                assert set(attempt) == attempt_keys
                assert [m["role"] for m in attempt["messages"]] == ["system", "user"]
            assert line["skill"] == line["decision"]["skill"]
    assert lines[0]["decision"] is not None  # the first step always decides
    assert lines[0]["decision"]["step"] == 0


def test_trace_and_record_counts_agree(episode):
    model, agent, record, lines = episode
    decisions = [line["decision"] for line in lines if line["decision"] is not None]
    assert record.llm_calls == len(model.calls) == sum(d["llm_calls"] for d in decisions)
    assert record.decisions == len(decisions) == agent.stats.decisions
    assert record.rejections == 0 and record.fallbacks == 0 and record.parse_failures == 0  # legal_only
    # every decision started one skill; all but the one still running at the horizon ended
    assert record.skills_done + record.skills_failed == record.decisions - 1
    assert record.skills_done >= 4 * record.metric("soups")  # at least 3 onions + dish + fill + deliver per soup, shared
    assert len(agent.stats.skill_durations) == record.skills_done + record.skills_failed
    assert record.skill_duration_mean == pytest.approx(sum(agent.stats.skill_durations) / len(agent.stats.skill_durations))
    assert record.cached_calls == 0
    assert record.prompt_tokens == sum(sum(len(m.content.split()) for m in c.messages) for c in model.calls)
    # rewards and events in the trace add up to the record
    assert sum(line["reward"] for line in lines) == record.score == lines[-1]["score"]
    delivers = [e for line in lines for e in line["events"] if e["kind"] == EventKind.DELIVER.value]
    assert len(delivers) == record.metric("soups") == record.events["deliver"][0]
    assert record.events["deliver"][1] == 0  # the partner only stays
    assert all(sum(counts[1:]) == 0 for counts in [record.events[k.value] for k in EventKind])
    EpisodeRecord.model_validate_json(record.model_dump_json())


def test_replay_from_the_cache_without_the_model(cramped, tmp_path):
    live_model = ScriptedModel(respond=sensible_policy)
    cached = CachedModel(live_model, tmp_path / "llm")
    _, first, first_lines = _play(cramped, cached, seed=3)
    assert cached.misses == len(live_model.calls) == first.llm_calls > 0
    assert first.score >= 40

    dead = ScriptedModel()  # same name ("test-double"), no answers: any call raises
    replay_cache = CachedModel(dead, tmp_path / "llm")
    _, second, second_lines = _play(cramped, replay_cache, seed=3)
    assert dead.calls == []
    assert replay_cache.misses == 0 and replay_cache.hits == second.llm_calls == first.llm_calls
    assert second.cached_calls == second.llm_calls

    def comparable(line: dict) -> dict:
        out = {k: line[k] for k in ("step", "state", "actions", "events", "reward", "score", "skill", "belief")}
        decision = line["decision"]
        if decision is not None:
            out["decision"] = {k: decision[k] for k in ("step", "attempts", "skill", "analysis", "intention", "fallback", "llm_calls")}
        return out

    assert [comparable(line) for line in second_lines] == [comparable(line) for line in first_lines]
    assert (second.score, second.metric("soups"), second.decisions, second.skills_done) == (first.score, first.metric("soups"), first.decisions, first.skills_done)
    assert second.events == first.events


def test_a_cache_miss_on_replay_reaches_the_model(cramped, tmp_path):
    """A different seed changes the requests: the dead model is asked and fails loudly."""
    cached = CachedModel(ScriptedModel(respond=sensible_policy), tmp_path / "llm")
    agent = make_agent(cramped, cached, seed=0, legal_only=True)
    import jax

    start = cramped.symbolic(cramped.jit_reset(jax.random.PRNGKey(0)))
    act(agent, start, [], None, 0.0)
    replay = make_agent(cramped, CachedModel(ScriptedModel(), tmp_path / "llm"), seed=1, legal_only=True)
    with pytest.raises(LLMError, match="no scripted response left"):
        act(replay, start, [], None, 0.0)
