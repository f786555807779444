"""`proagent human` without a browser: the game loop, its endpoints and the saved run folder."""

from __future__ import annotations

import json
import time

import jax
import jax.numpy as jnp
from web_helpers import human_args

import envs
from proagent.web.human_session import build_human_session
from proagent.web.questionnaire import load_questionnaire
from tests.support.http_calls import call, wait_for


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_human_run_folder_is_a_normal_run_with_a_human_marker(human_run):
    config = json.loads((human_run / "config.json").read_text())
    assert config["partner"] == "human" and config["seat"] == 1 and config["agent"] == {"name": "greedy"}
    assert config["human"]["human_seat"] == 0 and config["human"]["mode"] == "realtime" and config["human"]["fps"] == 40
    (episode,) = _lines(human_run / "episodes.jsonl")
    assert episode["partner"] == "human" and episode["steps"] == 20 and "events" in episode
    trace = _lines(human_run / "trace.jsonl")
    assert [r["step"] for r in trace] == list(range(20)) and all(r["seat"] == 1 and r["kitchen"] for r in trace)
    assert "up" in [r["actions"][0] for r in trace], "the person's key press is the action of their seat"
    assert json.loads((human_run / "summary.json").read_text())["episodes"] == 1
    assert "window.REPLAY_DATA" in (human_run / "replay.html").read_text()


def test_questionnaire_is_the_six_statements_of_the_paper(human_run):
    saved = json.loads((human_run / "questionnaire.json").read_text())
    questions = load_questionnaire(world="overcooked").questions  # the paper's words: the statements as quoted
    assert [a["text"] for a in saved["answers"]] == [q.text for q in questions]
    assert len(questions) == 6 and questions[0].text == "My partner and I worked together to deliver the soups."
    assert questions[1].text == "My partner contributed to the successful delivery of the soups."
    assert {a["value"] for a in saved["answers"]} == {4} and saved["answers"][0]["label"] == "Agree"


def test_recorded_joint_actions_replay_the_episode_exactly(human_run, cramped_env):
    """Real-time timing is not reproducible, but seed + recorded joint actions are."""
    trace = _lines(human_run / "trace.jsonl")
    env = cramped_env
    key = jax.random.PRNGKey(0)
    state = env.jit_reset(key)
    for t, record in enumerate(trace):
        assert env.symbolic(state).to_record() == record["kitchen"], f"step {t}"
        actions = jnp.asarray([envs.Action[a.upper()] for a in record["actions"]], dtype=jnp.int32)
        state = env.jit_step(jax.random.fold_in(key, t), state, actions).state
    assert env.symbolic(state).to_record() == trace[-1]["final"]["kitchen"]


def test_turn_based_game_steps_once_per_key_and_validates_input(tmp_path, cramped_env):
    session = build_human_session(human_args(tmp_path, "--mode", "turns", "--no-questionnaire"), cramped_env)
    with session.serve(0) as server:
        assert call(server.url, "/api/action", {"action": "jump"})[0] == 400
        assert call(server.url, "/api/questionnaire", {"skipped": True})[0] == 404
        assert call(server.url, "/api/start", {})[1]["started"] is True
        assert call(server.url, "/api/start", {})[1]["started"] is False
        time.sleep(0.2)
        assert call(server.url, "/api/state")[1]["step"] == 0, "turn-based: nothing moves without a key"
        for n, key in enumerate(["up", "left", "interact"], start=1):
            call(server.url, "/api/action", {"action": key})
            wait_for(lambda n=n: call(server.url, "/api/state")[1]["step"] == n)
        state = call(server.url, "/api/state")[1]
        assert state["status"] == "running" and state["actions"][0] == "interact"
        for n in range(4, 21):
            call(server.url, "/api/action", {"action": "stay"})
            wait_for(lambda n=n: call(server.url, "/api/state")[1]["step"] >= n or session.game.finished.is_set())
        assert session.game.finished.wait(10) and call(server.url, "/api/state")[1]["status"] == "finished"
    trace = _lines(session.folder.path / "trace.jsonl")
    assert [r["actions"][0] for r in trace] == ["up", "left", "interact"] + ["stay"] * 17


def test_questionnaire_endpoint_checks_answers_and_saves_once(tmp_path, cramped_env):
    session = build_human_session(human_args(tmp_path, "--fps", "60"), cramped_env)
    with session.serve(0) as server:
        assert call(server.url, "/api/questionnaire", {"skipped": True})[0] == 409, "not before the game is over"
        call(server.url, "/api/start", {})
        assert session.game.done.wait(10) and call(server.url, "/api/state")[1]["status"] == "over"
        status, answer = call(server.url, "/api/questionnaire", {"answers": {"q1": 9}})
        assert status == 400 and "missing" in answer["error"]
        assert call(server.url, "/api/questionnaire", {"skipped": True})[0] == 200
        assert call(server.url, "/api/questionnaire", {"skipped": True})[0] == 409
        assert session.game.finished.is_set()
    assert json.loads((session.folder.path / "questionnaire.json").read_text())["skipped"] is True


def test_static_files_cannot_escape_their_folder(tmp_path, cramped_env):
    session = build_human_session(human_args(tmp_path, "--no-questionnaire"), cramped_env)
    with session.serve(0) as server:
        assert call(server.url, "/static/..%2F__init__.py")[0] == 404
        assert call(server.url, "/static/nope.js")[0] == 404
        assert call(server.url, "/api/nothing")[0] == 404
        assert call(server.url, "/api/info")[1]["terrain"][0] == "XXPXX"


def test_unknown_agent_lists_the_registry(tmp_path, capsys):
    from proagent.cli import main

    assert main(["human", "--agent", "nobody", "--runs-dir", str(tmp_path), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'nobody'" in err and "proagent" in err and "greedy" in err


def test_llm_agent_plays_in_real_time_through_an_openai_compatible_server(tmp_path, cramped_env, monkeypatch):
    """`--agent proagent` end to end (litellm → loopback server with 0.3 s latency): the game keeps
    its 20 steps/s while the agent thinks, and its decisions are in the trace."""
    from tests.support.fake_server import FakeChatServer
    from tests.support.loopback import LOOPBACK_SPEC, loopback_args
    from tests.support.responders.overcooked import overcooked_answer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-0000000000")
    with FakeChatServer(delay_s=0.3, responder=overcooked_answer) as llm:
        request = human_args(tmp_path, "--agent", "proagent", *loopback_args(llm.url), "--fps", "20", "--no-questionnaire")
        session = build_human_session(request, cramped_env)
        with session.serve(0) as server:
            started = time.monotonic()
            call(server.url, "/api/start", {})
            call(server.url, "/api/action", {"action": "right"})
            assert session.game.finished.wait(60)
            wall = time.monotonic() - started
        assert session.game.record is not None, session.game.snapshot()["error"]
    config = json.loads((session.folder.path / "config.json").read_text())
    assert config["agent"]["name"] == "proagent" and config["agent"]["background_decisions"] is True
    assert config["llm"] == LOOPBACK_SPEC
    trace = _lines(session.folder.path / "trace.jsonl")
    assert len(trace) == 20 and any(r.get("thinking") for r in trace) and any(r["decision"] for r in trace)
    assert wall < 20 / 20 + 3.0, f"{wall:.1f} s for 20 steps at 20/s: the game waited for the LLM"
    assert session.game.record.llm_calls >= 1


def test_a_human_run_is_reported_and_replayed_as_its_world(human_run, tmp_path, capsys):
    import shutil

    from proagent.cli import main
    from proagent.runner.run_world import world_of

    run = shutil.copytree(human_run, tmp_path / human_run.name)
    assert world_of(run) == json.loads((run / "config.json").read_text())["domain"] == "overcooked"
    assert main(["report", str(run), "--quiet"]) == 0
    assert (run / "table.md").read_text().splitlines()[0].startswith(f"# {run.name} (overcooked)")
    assert "| greedy / human |" in (run / "table.md").read_text(), (
        "the agent in the record's seat, with the person as partner"
    )
    assert main(["replay", str(run), "--list"]) == 0 and "      1  -" in capsys.readouterr().out


def test_a_game_can_end_early_once_the_team_reaches_a_count(tmp_path, cramped_env):
    """A study's round "until 1 soup": the episode loop stops at the delivery, before the horizon."""
    import asyncio

    import pytest

    from proagent.domains import get_domain
    from proagent.runner.episode import run_episode
    from proagent.world.types import DomainInputError

    domain = get_domain("overcooked")
    env = envs.make("cramped_room", envs.Dynamics(horizon=200))
    team = [domain.make_partner("greedy", env) for _ in range(2)]
    soups = lambda score, events: domain.episode_metrics(events)["soups"] >= 1
    record = asyncio.run(run_episode(env, domain, team, 0, 0, 0, stop_when=soups))
    assert record.domain_metrics["soups"] == 1 and record.steps < 200
    session = build_human_session(human_args(tmp_path / "a", "--until", "soups=2"), cramped_env)
    assert session.game.settings.until == ("soups", 2)
    with pytest.raises((DomainInputError, ValueError), match="--until bananas: overcooked counts soups"):
        build_human_session(human_args(tmp_path / "b", "--until", "bananas=2"), cramped_env)
