"""CUBE teams that talk: ProAgent through MAEIL under every topology, with the CUBE scripted
planner; prompts carry exactly the conversation; `play --agents --topology --llm scripted` end to end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.cli import main
from proagent.domains import get_domain
from proagent.maeil import TOPOLOGIES, TopologyConfig
from proagent.runner.episode import run_episode
from tests.support.responders.cube import cube_answer
from tests.support.scripted import ScriptedModel, answering

DOMAIN = get_domain("cube")


def _episode(topology: str | None, layout: str, horizon: int, agents: int | None = None, partners: int = 0, focal: int = 0) -> tuple:
    env = DOMAIN.make_env(layout, horizon) if agents is None else DOMAIN.capabilities.teams.make_team_env(layout, horizon, agents)
    team = [
        DOMAIN.make_partner("pusher", env)
        if seat >= env.num_agents - partners
        else ProAgent(AgentConfig(), ScriptedModel(respond=answering(cube_answer)), DOMAIN, env)
        for seat in range(env.num_agents)
    ]
    lines: list[dict] = []
    config = TopologyConfig(name=topology) if topology else None
    record = asyncio.run(run_episode(env, DOMAIN, team, focal, 0, 0, trace=lines.append, topology=config))
    return record, lines, team


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_three_proagents_deliver_under_every_topology(topology: str) -> None:
    record, lines, _ = _episode(topology, "medium_3a", 150)
    assert record.metric("blocks_delivered") == 3
    p = record.process_metrics
    spoken = sum(1 for line in lines for r in line["cognition"] if r["kind"] == "message" and r["type"] in ("say", "directive"))
    assert p["messages"] == spoken and (spoken == 0) == (topology == "individual")
    assert p["task_steps"] > 0 and p["c_plus_temporal"] > 0  # the domain's constraints ride along
    for line in lines:  # the environment advanced only with every agent executing
        assert line["stages"] == {"0": "X", "1": "X", "2": "X"}
        for r in line["cognition"]:
            assert r["t_env"] == line["step"]


def test_without_a_topology_the_episode_is_the_one_individual_maeil_plays() -> None:
    plain, lines, _ = _episode(None, "medium_3a", 120)
    individual, _, _ = _episode("individual", "medium_3a", 120)
    assert "cognition" not in lines[0] and not any(k.startswith("messages") for k in plain.process_metrics)
    assert (plain.score, plain.decisions, plain.llm_calls) == (individual.score, individual.decisions, individual.llm_calls)


def test_followers_adopt_the_leaders_directive_and_prompts_hold_the_conversation() -> None:
    _, lines, _team = _episode("centralized", "medium_3a", 40)
    first = lines[0]["cognition"]
    directive = next(r for r in first if r["kind"] == "message" and r["type"] == "directive")
    follower_plans = {r["agent"]: r["plan"] for r in first if r["kind"] == "plan" and r["agent"] != 0}
    assert all(f"player {seat}: {plan}" in directive["text"] for seat, plan in follower_plans.items())
    leader_prompt = lines[0]["decision"]["attempts"][0]["messages"][1]["content"]
    assert "You lead the team" in leader_prompt and "give every teammate one skill" in leader_prompt
    assert "player 1 (request) wrote: \"player 1 needs a new plan\"" in leader_prompt and "message" in leader_prompt.split("Answer")[-1]
    _, lines, _ = _episode("centralized", "medium_3a", 3, focal=1)
    follower_prompt = lines[0]["decision"]["attempts"][0]["messages"][1]["content"]
    assert f"- player 0 (directive) wrote: {json.dumps(directive['text'])}" in follower_prompt and "follow its directive" in follower_prompt
    assert "message" not in follower_prompt.split("Answer")[-1]  # a follower acknowledges; it does not speak


def test_individual_prompts_carry_no_message_field_and_plain_prompts_no_conversation() -> None:
    _, lines, _ = _episode("individual", "easy_2a", 5)
    prompt = lines[0]["decision"]["attempts"][0]["messages"][1]["content"]
    assert "without messages" in prompt and "message" not in prompt.split("Answer")[-1]
    _, plain, _ = _episode(None, "easy_2a", 5)
    prompt = plain[0]["decision"]["attempts"][0]["messages"][1]["content"]
    assert "messages" not in prompt.lower()


@pytest.mark.parametrize(("layout", "agents"), [("easy_2a", 2), ("medium_3a", 4), ("hard_4a", 6)])
def test_teams_of_any_size_with_scripted_partners_in_a_decentralized_conversation(layout: str, agents: int) -> None:
    record, lines, _ = _episode("decentralized", layout, 60, agents=agents, partners=1)
    assert len(record.team) == agents and record.team[-1] == "pusher"
    assert len(lines[0]["stages"]) == agents - 1  # the pusher has no cognitive layer
    assert (record.process_metrics["messages"] > 0) == (agents - 1 >= 2)  # a lone talker has nobody to tell


SCRIPTED = ["--llm", "scripted"]


def test_play_with_agents_and_topology_records_both(tmp_path: Path) -> None:
    argv = ["play", "--domain", "cube", "--layout", "medium_3a", "--agents", "4", "--topology", "centralized", "--partner", "proagent,pusher,proagent"]
    llm = [*SCRIPTED, "--runs-dir", str(tmp_path), "--horizon", "40", "--live", "off", "--no-gif"]
    assert main([*argv, *llm]) == 0
    (run,) = tmp_path.glob("*-play-medium_3a@4-proagent+pusher+proagent")
    config = json.loads((run / "config.json").read_text())
    assert config["num_agents"] == 4 and config["topology"]["name"] == "centralized"
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["team"] == ["proagent", "proagent", "pusher", "proagent"] and episode["process_metrics"]["messages"] > 0


def test_play_with_repair_records_it_and_implies_individual(tmp_path: Path) -> None:
    argv = ["play", "--domain", "cube", "--layout", "medium_3a", "--repair", "on", "--partner", "proagent"]
    llm = [*SCRIPTED, "--runs-dir", str(tmp_path), "--horizon", "20", "--live", "off", "--no-gif"]
    assert main([*argv, *llm]) == 0
    (run,) = tmp_path.glob("*-play-medium_3a-*")
    config = json.loads((run / "config.json").read_text())
    assert config["topology"]["name"] == "individual" and config["topology"]["repair"] == "on"
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert 0 < episode["process_metrics"]["repair_checks"] <= 20


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--layout", "cramped_room", "--topology", "debate"], "no conversation template"),
        (["--layout", "cramped_room", "--agents", "3"], "fixed teams"),
        (["--domain", "cube", "--layout", "hard_4a", "--agents", "2"], "weight"),
        (["--domain", "cube", "--layout", "easy_2a", "--partner", "pusher,lazy"], "names the 1 other seats"),
        (["--layout", "cramped_room", "--repair", "on"], "gives no plan-effect estimate"),
    ],
)
def test_bad_team_and_topology_flags_are_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["play", *argv, "--llm", "openai/test", "--api-base", "http://127.0.0.1:9", "--live", "off"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
