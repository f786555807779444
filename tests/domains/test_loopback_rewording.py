"""Rewording a prompt set's sentences leaves the loopback responders' answers unchanged: they answer
from the grounding the agent sends beside each prompt, never from the prompt's words.

Each case copies a world's prompt sets, rewords the state, feedback, memory, conversation and
answer-format lines a responder once read with regular expressions, and plays the same episode
with both sets: every prompt differs, every answer (hence every decision) is the same."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.domains import get_domain
from proagent.maeil import TopologyConfig
from proagent.runner.episode import run_episode
from proagent.world.interface import Domain
from tests.support.responders.cube import cube_answer
from tests.support.responders.overcooked import overcooked_answer
from tests.support.scripted import ScriptedCall, ScriptedModel

OVERCOOKED_WORDS = {  # file -> (old words, new words)
    "_shared/state.j2": [
        ("holding", "carrying"),
        ("Pot at", "The pot at"),
        ("Recipe:", "Dish to cook:"),
        ("Step {{", "Turn {{"),
        ("Steps from you to the nearest", "Walking distances to the closest"),
        ("Objects on counters", "On the counters"),
        ("Button indicator at", "The button at"),
        ("the last skill you saw it complete was", "it last finished"),
        ("ingredients (", "items ("),
        ("unreachable", "out of reach"),
        ("at most", "no more than"),
    ],
    "proagent/planner_user.j2": [
        ("Your plan", "Rejected:"),
        ("you chose", "you picked"),
        ("cannot be done now", "is impossible"),
    ],
    "_shared/answer_format.j2": [
        ("Answer with one JSON object", "Reply with a JSON object"),
        ("Answer in exactly", "Reply in"),
    ],
    "proagent/explainer.j2": [("You chose", "The rejected skill was")],
}
CUBE_WORDS = {
    "proagent/state.j2": [
        ("Block", "Crate"),
        ("You (player", "Me (seat"),
        ("Teammate (player", "Partner (seat"),
        ("steps from you", "moves away"),
        ("is in its way", "blocks it"),
        ("unreachable", "out of reach"),
    ],
    "proagent/answer_format.j2": [
        ("Answer with one JSON object with the keys", "Reply with a JSON object having"),
        ("Message: <", "Say: <"),
    ],
    "_talk/centralized.j2": [("You lead the team", "You are the team's leader")],
    "_talk/_inbox.j2": [("- player {{ m.from }}", "* from {{ m.from }}")],
}


def reworded(domain: Domain, words: dict[str, list[tuple[str, str]]], root: Path) -> Domain:
    """``domain`` with a copy of its prompt sets in which ``words`` are replaced."""
    shutil.copytree(domain.prompts_root, root)
    for name, pairs in words.items():
        path = root / name
        text = path.read_text()
        for old, new in pairs:
            assert old in text, (name, old)
            text = text.replace(old, new)
        path.write_text(text)
    return type(f"Reworded{type(domain).__name__}", (type(domain),), {"prompts_root": root})()


def play(
    domain: Domain, layout: str, horizon: int, responder, topology: str | None = None
) -> tuple[list[str], list[str]]:
    """One episode of ProAgents answered by ``responder``: every prompt's user text and every answer."""
    env = domain.make_env(layout, horizon)
    prompts: list[str] = []
    answers: list[str] = []

    def respond(call: ScriptedCall) -> str:
        prompts.append(call.messages[-1].content)
        answers.append(responder(call.grounding))
        return answers[-1]

    team = [ProAgent(AgentConfig(), ScriptedModel(respond=respond), domain, env) for _ in range(env.num_agents)]
    config = TopologyConfig(name=topology) if topology else None
    asyncio.run(run_episode(env, domain, team, 0, 0, 0, topology=config))
    return prompts, answers


@pytest.mark.parametrize(
    ("layout", "horizon"), [("cramped_room", 60), ("grounded_coord_simple", 60), ("test_time_simple", 40)]
)
def test_overcooked_answers_survive_reworded_templates(tmp_path: Path, layout: str, horizon: int) -> None:
    domain = get_domain("overcooked")
    prompts, answers = play(domain, layout, horizon, overcooked_answer)
    new_prompts, new_answers = play(
        reworded(domain, OVERCOOKED_WORDS, tmp_path / "p"), layout, horizon, overcooked_answer
    )
    assert len(answers) > 5 and new_answers == answers
    assert all(a != b for a, b in zip(prompts, new_prompts, strict=True))


def test_cube_answers_and_messages_survive_reworded_templates(tmp_path: Path) -> None:
    domain = get_domain("cube")
    prompts, answers = play(domain, "medium_3a", 30, cube_answer, "centralized")
    new_prompts, new_answers = play(
        reworded(domain, CUBE_WORDS, tmp_path / "p"), "medium_3a", 30, cube_answer, "centralized"
    )
    assert len(answers) > 5 and new_answers == answers and any("player 1: push(" in a for a in answers)
    assert all(a != b for a, b in zip(prompts, new_prompts, strict=True))
