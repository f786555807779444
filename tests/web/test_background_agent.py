"""BackgroundProAgent: the game keeps its pace while the LLM thinks; decisions still arrive."""

from __future__ import annotations

from proagent.contract import Observation, seat_team
from proagent.domains.overcooked import OvercookedDomain

DOMAIN = OvercookedDomain()

import asyncio
import time

import jax
from web_helpers import heuristic_model

from proagent.agent.background import BackgroundProAgent
from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.domains.overcooked.partners import make_partner
from proagent.runner.episode import run_episode

LATENCY_S = 0.25


class SlowModel:
    """The heuristic cook, answering after LATENCY_S (a slow LLM)."""

    def __init__(self) -> None:
        self.inner = heuristic_model(reject_first=False)
        self.name = "slow"

    async def generate(self, messages, **kwargs):
        await asyncio.sleep(LATENCY_S)
        return await self.inner.generate(messages, **kwargs)


def _play(cls, env, tick_s: float) -> tuple[list[dict], float]:
    agent = cls(AgentConfig(), SlowModel(), DOMAIN, env)  # run_episode resets it on the first state
    trace: list[dict] = []
    started = time.perf_counter()
    asyncio.run(
        run_episode(
            env,
            DOMAIN,
            seat_team(agent, 0, [make_partner("stay")]),
            0,
            0,
            0,
            trace=trace.append,
            pace=lambda: asyncio.sleep(tick_s),
        )
    )
    return trace, time.perf_counter() - started


def test_the_game_does_not_wait_for_the_llm(cramped_env):
    # Judged by what the trace shows, not by wall time (a loaded machine would make a time bound flaky):
    # steps go on while the model thinks, and each decision lands steps after it was asked.
    trace, _ = _play(BackgroundProAgent, cramped_env, tick_s=0.02)
    thinking = [r for r in trace if r.get("thinking")]
    decided = [r for r in trace if r["decision"]]
    assert len(trace) == 20 and len(thinking) >= 3, "the loop waited for the model"
    assert thinking and all(r["actions"][0] == "stay" for r in thinking if r["skill"] is None), (
        "it waits in place while thinking"
    )
    assert decided, "decisions still arrive and are traced"
    assert all(r["decision"]["step"] < r["step"] for r in decided), "a decision is adopted steps after it was asked"
    assert any(r["actions"][0] != "stay" for r in trace), "the adopted skill is executed"


def test_blocking_proagent_waits_for_every_decision(cramped_env):
    trace, wall = _play(ProAgent, cramped_env, tick_s=0.0)
    decisions = sum(1 for r in trace if r["decision"])
    assert decisions >= 2 and wall >= decisions * LATENCY_S
    assert all(r["decision"]["step"] == r["step"] for r in trace if r["decision"])
    assert not any(r.get("thinking") for r in trace)


def test_llm_failure_in_the_background_reaches_the_episode(cramped_env):
    from proagent.llm.types import LLMError
    from tests.support.scripted import ScriptedModel

    first = cramped_env.symbolic(cramped_env.jit_reset(jax.random.PRNGKey(0)))
    agent = BackgroundProAgent(AgentConfig(), ScriptedModel([LLMError("down")]), DOMAIN, cramped_env)
    agent.reset(0, 0, Observation(0, first, None, None, 0.0))

    async def play() -> None:
        await run_episode(
            cramped_env, DOMAIN, seat_team(agent, 0, [make_partner("stay")]), 0, 0, 0, pace=lambda: asyncio.sleep(0.001)
        )

    try:
        asyncio.run(play())
    except LLMError as exc:
        assert "down" in str(exc)
    else:
        raise AssertionError("the LLM error was swallowed")
    assert len(agent.model.calls) == 1


def test_the_background_agent_sees_each_step_through_its_perceiver():
    """On a partial-view kitchen the human page's LLM teammate grounds on its own current view
    (it used to keep the first step's view for the whole game)."""
    import envs

    env = envs.make("grounded_coord_simple", envs.Dynamics(agent_view_size=2, horizon=6))
    agent = BackgroundProAgent(AgentConfig(), SlowModel(), DOMAIN, env)
    steps: list[int] = []
    original = agent._perceive

    def spy(obs, events):
        original(obs, events)
        steps.append(agent.view.step)

    agent._perceive = spy
    asyncio.run(
        run_episode(
            env, DOMAIN, seat_team(agent, 0, [make_partner("stay")]), 0, 0, 0, pace=lambda: asyncio.sleep(0.001)
        )
    )
    assert steps == list(range(len(steps))) and len(steps) >= 5
    assert agent.perceiver.believed_state().step == steps[-1]
