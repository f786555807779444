"""The replay of a clocked run marks when each decision was asked and when it landed (the data
the timeline reads, no browser); a trace without clock records has no marks."""

from __future__ import annotations

import asyncio

from proagent.agent.config import AgentConfig
from proagent.builder import llm_agent
from proagent.domains import get_domain
from proagent.runner.episode import run_episode
from proagent.runner.run_folder import RunFolder
from proagent.web.replay_clock import clock_marks
from proagent.web.replay_data import episode_payload, load_run
from tests.support.responders.overcooked import overcooked_answer
from tests.support.scripted import ScriptedModel, answering

DOMAIN = get_domain("overcooked")


def _run(tmp_path, clock: str):
    env = DOMAIN.make_env("cramped_room", 30)
    folder = RunFolder(tmp_path / f"20260101-000000-play-cramped_room-greedy-{clock.replace(':', '')}")
    folder.write_json(
        "config.json",
        {"layout": "cramped_room", "partner": "greedy", "seat": 0, "seed": 0, "horizon": 30, "llm": "test"},
    )
    agent = llm_agent(DOMAIN, env, AgentConfig(clock=clock), ScriptedModel(respond=answering(overcooked_answer)))
    record = asyncio.run(
        run_episode(
            env,
            DOMAIN,
            [agent, DOMAIN.make_partner("greedy", env)],
            0,
            0,
            0,
            trace=lambda r: folder.append_jsonl("trace.jsonl", r),
        )
    )
    folder.append_jsonl("episodes.jsonl", record, durable=True)
    return folder.path


def test_each_decision_is_marked_where_it_was_asked_and_where_it_landed(tmp_path) -> None:
    payload = episode_payload(load_run(_run(tmp_path, "tokens:40")))
    frames = {f["step"]: f for f in payload["frames"] if not f.get("final")}
    asked = [(s, m) for s, f in frames.items() for m in f["clock"] if m["mark"] == "asked"]
    landed = [(s, m) for s, f in frames.items() for m in f["clock"] if m["mark"] == "landed"]
    assert asked and landed and any(m["steps"] > 0 for _, m in asked)
    for step, mark in asked:
        assert mark["steps"] == mark["lands"] - step and mark["skill"] and mark["tokens_in"] + mark["tokens_out"] > 0
        if mark["lands"] in frames:  # the same decision's landing mark, on its own frame
            assert any(m["mark"] == "landed" and m["based_on"] == step for m in frames[mark["lands"]]["clock"])
    assert all(frames[s]["thinking"] for s, m in asked for s in range(s, min(m["lands"], max(frames) + 1)))


def test_a_turns_run_has_no_marks_and_bad_records_are_left_out(tmp_path) -> None:
    payload = episode_payload(load_run(_run(tmp_path, "turns")))
    assert not any(f["clock"] for f in payload["frames"])
    bad = [{"step": 3, "clock": {"based_on": 5, "lands": 2}}, {"step": 4, "clock": "soon"}]
    good = {
        "step": 6,
        "clock": {"based_on": 6, "lands": 9, "tokens_in": 3, "tokens_out": 4, "wall_s": 0.5},
        "decision": {"skill": "wait(1)"},
    }
    marks = clock_marks([*bad, good])
    assert set(marks) == {6, 9} and marks[9][0] == {
        "mark": "landed",
        "based_on": 6,
        "skill": "wait(1)",
        "steps": 3,
        "tokens_in": 3,
        "tokens_out": 4,
        "wall_s": 0.5,
    }
