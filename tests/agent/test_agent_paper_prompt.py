"""The paper's prompt set (``--prompt paper``): its knowledge library renders for every classic
layout and seat with the env's real settings, it shows the recent-K trajectory, and `proagent play`
runs it end to end through the loopback server with its defaults (trajectory memory, llm3)."""

from __future__ import annotations

import json

import pytest
from agent_helpers import DOMAIN, overcooked_knowledge

import envs
from proagent.agent.planner import Planner
from proagent.agent.prompt_check import check_prompt_set
from proagent.agent.prompts import load_prompt_set
from proagent.cli import main
from proagent.domains.overcooked.grounding import ground
from proagent.domains.overcooked.skills import Skill, SkillBook
from proagent.paths import PROMPTS_DIR
from proagent.world.types import TeammateView
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import hasty_answer

PAPER = load_prompt_set("paper", PROMPTS_DIR / "overcooked")
CORRECTED = "your teammate actually did deliver_soup()"
MEMORY = [
    {"step": 3, "state": "you at [1, 2]", "analysis": "The pot needs onions.", "intention": "pickup(dish)"},
    {"step": 7, "state": "you at [2, 1]", "analysis": None, "intention": "wait(1)"},
]
MEMORY[0].update(belief=None, skill="pickup(onion)", outcome="done")
MEMORY[1].update(belief=CORRECTED, skill="wait(2)", outcome="running")


def test_the_paper_set_defaults_to_the_trajectory_and_the_three_rounds():
    assert (PAPER.level, PAPER.memory, PAPER.verificator) == ("intention", "trajectory", "llm3")


@pytest.mark.parametrize("layout", list(envs.CLASSIC_LAYOUTS))
@pytest.mark.parametrize("seat", [0, 1])
def test_the_knowledge_library_and_trajectory_render_for_every_layout_and_seat(
    first_kitchens, agent_env, layout, seat
):
    kitchen = first_kitchens[layout]
    book = SkillBook.for_kitchen(kitchen)
    knowledge = overcooked_knowledge(layout, seat)
    planner = Planner(PAPER, knowledge, book, seat, "json", teammates=(1 - seat,))
    system = planner.system_prompt
    assert f"You control player {seat} and cooperate with player {1 - seat}," in system
    assert knowledge.task in system and knowledge.rules in system  # rendered with the env's settings
    assert f"cooks for {knowledge.facts['cook_time']} steps" in system
    assert f"Layout: {layout}." in system and knowledge.layout["role"] in system
    for demo in knowledge.demos:  # this layout's and this seat's demonstrations
        shown = f"State: {demo['state']}\nAnalysis: {demo['analysis']}\nIntention: {demo['intention']}\n"
        shown += f"Plan: {demo['plan']}"
        assert shown in system

    facts = ground(kitchen, seat, book, TeammateView(1 - seat, None, "up"), 0.0)
    feedback = [{"skill": "deliver_soup()", "reasons": ["you hold nothing"], "explanation": "Fetch a soup first."}]
    user = planner.messages(facts, MEMORY, feedback)[1].content
    assert "Memory (your last 2 decisions, oldest first):" in user
    first = "- Step 3. State: you at [1, 2]. Analysis: The pot needs onions. Belief: your teammate will pickup(dish)."
    assert f"{first} Skill: pickup(onion) (done)." in user
    assert f"Belief: your teammate will wait(1) ({CORRECTED}). Skill: wait(2) (running)." in user
    assert "Error conclusion: Fetch a soup first. Re-plan with another skill." in user
    assert "Let's think step by step" in user
    assert f"Skill: wait(2) (running).\n\nCurrent state:\nStep {facts['step']} of" in user
    check_prompt_set(PAPER, DOMAIN, agent_env(layout), kitchen, seat, "llm3")  # the three rounds render too
    templates = ("verify_preconditions.j2", "verify_double_check.j2")
    rounds = [planner.verify_prompt(t, facts, Skill("deliver_soup"), ["you hold nothing"]) for t in templates]
    assert "Analysis of why I cannot execute this skill in the current scene step by step" in rounds[0]
    assert f"You chose deliver_soup(): {knowledge.render(book.specs['deliver_soup'].description)}" in rounds[0]
    # round 1 finds the failing precondition itself; round 2 is told the checks' reasons
    assert "you hold nothing" not in rounds[0] and "you hold nothing" in rounds[1]


def test_play_with_the_paper_set_runs_end_to_end(tmp_path):
    with FakeChatServer(responder=hasty_answer) as server:
        args = ["play", "--layout", "cramped_room", "--partner", "greedy", "--horizon", "40", "--prompt", "paper"]
        args += [*loopback_args(server.url), "--runs-dir", str(tmp_path), "--live", "off", "--no-gif"]
        assert main(args) == 0
    (run,) = tmp_path.glob("*-play-*")
    assert json.loads((run / "config.json").read_text())["agent"]["prompt"] == "paper"
    (record,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    decisions = [step["decision"] for step in trace if step["decision"]]
    rejected = [a for d in decisions for a in d["attempts"] if a["failures"]]
    assert record["rejections"] == len(rejected) >= 1 and record["steps"] == 40
    rounds = ["preconditions", "double_check", "conclusion"]
    assert all([r["round"] for r in a["verification"]] == rounds for a in rejected)
    accepted = [d for d in decisions if d["analysis"]]
    later = decisions[-1]["attempts"][0]["messages"][-1]["content"]
    assert f"Analysis: {accepted[-2]['analysis']}" in later  # the trajectory memory, by default
    replans = [d["attempts"][1]["messages"][-1]["content"] for d in decisions if len(d["attempts"]) > 1]
    assert replans and all("Error conclusion: Conclusion: deliver_soup() fails" in p for p in replans)
