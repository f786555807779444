"""Hostile answers where they enter the agent: free texts are bounded before memory and
later prompts, and the model layer's retry counts reach AgentStats and the episode record.

A 4-step cramped_room with a scripted model and a partner that stays: no embedded model, no network.
"""

from __future__ import annotations

from proagent.contract import ImmediateAgent, Observation, seat_team
from proagent.domains.overcooked import OvercookedDomain

DOMAIN = OvercookedDomain()

import asyncio
import json
from typing import Any

import jax
import pytest

import envs
from envs.overcooked.env import Dynamics
from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.llm.types import Completion, Message, StructuredOutput
from proagent.runner.episode import run_episode
from tests.support.scripted import ScriptedModel


def _answer(plan: str, intention: str = "wait(1)", analysis: str = "ok") -> str:
    return json.dumps({"analysis": analysis, "intention": intention, "plan": plan})


class _Stay(ImmediateAgent):
    name = "stay"

    def reset(self, seat: int, seed: int, first: Any = None) -> None:
        pass

    def policy(self, kitchen: Any, state: Any) -> envs.Action:
        return envs.Action.STAY


class _Retrying:
    """Answers like ``inner`` but as if every request had needed two retries first."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def generate(self, messages: list[Message], *, structured: StructuredOutput | None = None, **kw: Any) -> Completion:
        completion = await self.inner.generate(messages, structured=structured, **kw)
        return completion.model_copy(update={"retries": 2, "retry_causes": ("RateLimitError", "Timeout")})


@pytest.fixture(scope="module")
def env() -> envs.OvercookedEnv:
    return envs.make("cramped_room", Dynamics(horizon=4))


def _agent(env: envs.OvercookedEnv, model: Any, **config: Any) -> ProAgent:
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    agent = ProAgent(AgentConfig(**config), model, DOMAIN, env)
    agent.reset(0, 0, Observation(0, first, None, None, 0.0))
    return agent


def _decide(env: envs.OvercookedEnv, agent: ProAgent) -> None:
    asyncio.run(agent.act(Observation(0, env.symbolic(env.jit_reset(jax.random.PRNGKey(0))), None, None, 0.0), []))


def test_a_huge_failure_explanation_is_cut_before_the_replan(env: envs.OvercookedEnv) -> None:
    # put_onion_in_pot() fails at the start (empty hands), so the explainer is asked; it rambles.
    model = ScriptedModel([_answer("put_onion_in_pot()"), "x" * 100_000, _answer("pickup(onion)")])
    agent = _agent(env, model)
    _decide(env, agent)
    limit = 400  # AgentConfig.explanation_max_chars
    explanation = agent.last_decision.attempts[0].explanation
    assert explanation == "x" * (limit - 1) + "…"
    replan = model.calls[2].messages[1].content
    assert "x" * limit not in replan and len(replan) < len(model.calls[0].messages[1].content) + limit + 200
    assert str(agent.skill) == "pickup(onion)"


def test_huge_analysis_and_intention_are_cut_before_memory(env: envs.OvercookedEnv) -> None:
    model = ScriptedModel([_answer("pickup(onion)", intention="b" * 10_000, analysis="a" * 10_000)])
    agent = _agent(env, model)
    _decide(env, agent)
    limit = 1000  # AgentConfig.carried_text_max_chars
    record = agent.memory.last()
    assert record is not None and len(record.analysis) == limit and len(record.intention) == limit
    assert len(agent.last_decision.analysis) == limit and len(agent.last_decision.intention) == limit


def test_an_unreadable_answer_is_quoted_briefly_in_the_replan(env: envs.OvercookedEnv) -> None:
    model = ScriptedModel(["Plan: " + "z" * 20_000, _answer("pickup(onion)")])
    agent = _agent(env, model)
    _decide(env, agent)
    error = agent.last_decision.attempts[0].parse_error
    assert error is not None and len(error) == 1000  # AgentConfig.carried_text_max_chars
    assert "z" * 2_000 not in model.calls[1].messages[1].content


def test_retries_are_summed_into_stats_and_the_episode_record(env: envs.OvercookedEnv) -> None:
    model = _Retrying(ScriptedModel(respond=lambda call: _answer("wait(1)")))
    agent = _agent(env, model)
    record = asyncio.run(run_episode(env, DOMAIN, seat_team(agent, 0, [_Stay()]), 0, 0, 0))
    assert record.llm_calls == len(model.inner.calls) > 0
    assert agent.stats.retries == record.retries == 2 * record.llm_calls


def test_new_config_fields_keep_the_other_defaults() -> None:
    config = AgentConfig()
    assert (config.max_tokens, config.explain_max_tokens, config.analysis_max_chars) == (160, 60, 240)
    assert (config.explanation_max_chars, config.carried_text_max_chars) == (400, 1000)
