"""Every kind of agent keeps the whole agent contract: a front end may call any member on any agent
(the human page closes its agent at the game's end; it once crashed on a ProAgent without
``aclose``)."""

from __future__ import annotations

import inspect

import pytest
from agent_helpers import make_agent, run

import envs
from proagent.agent.background import BackgroundProAgent
from proagent.agent.config import AgentConfig
from proagent.contract import Agent, PolicyAgent
from proagent.domains import get_domain
from tests.support.scripted import ScriptedModel

MEMBERS = ("reset", "act", "info", "episode_stats", "aclose")  # `proagent.contract.Agent`, besides `name`


def _agents() -> list[object]:
    env = envs.make("cramped_room")
    overcooked, cube = get_domain("overcooked"), get_domain("cube")
    cube_env = cube.make_env("easy_2a", 20)
    return [
        make_agent(env, ScriptedModel([])),
        BackgroundProAgent(AgentConfig(), ScriptedModel([]), overcooked, env),
        *(overcooked.make_partner(name, env) for name in ("greedy", "stay", "random", "sp")),
        *(cube.make_partner(name, cube_env) for name in ("pusher", "lazy", "ippo_shared")),
        PolicyAgent("still", lambda state, seat: 0),
    ]


@pytest.mark.parametrize("member", MEMBERS)
def test_every_agent_has_every_member_of_the_contract(member: str) -> None:
    for agent in _agents():
        assert isinstance(agent, Agent), type(agent)
        assert callable(getattr(type(agent), member, None)), f"{type(agent).__name__} lacks {member}"
    assert set(MEMBERS) <= {name for name, _ in inspect.getmembers(Agent)}


def test_closing_any_agent_after_an_episode_returns() -> None:
    for agent in _agents():
        assert run(agent.aclose()) is None
