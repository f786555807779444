"""The real embedded model (SmolLM2-135M via llama-cpp-python) drives the agent for a few decisions.

Slow-ish (model load + a few constrained generations, ~20-40 s on 2 cores) but it is the only test
that exercises the whole pipeline with a real model, so it stays in the default run.
"""

from __future__ import annotations

from proagent.contract import seat_team
from proagent.domains.overcooked import OvercookedDomain

DOMAIN = OvercookedDomain()

import asyncio
import importlib.util

import jax
import pytest

import envs
from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.domains.overcooked.partners import make_partner
from proagent.llm.factory import make_model
from proagent.runner.episode import run_episode

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed (see README install)"
)


@pytest.mark.slow  # ~10 s or more: the slow CI step runs it (default suite < ~5 min)
def test_embedded_model_plays_a_few_legal_decisions(tmp_path):
    env = envs.make("counter_circuit", envs.Dynamics(horizon=3))  # the first decision is at step 0
    model = make_model("embedded", cache_dir=tmp_path / "cache")
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    agent = ProAgent(AgentConfig(legal_only=True), model, DOMAIN, env)
    assert first.step == 0
    trace: list[dict] = []
    record = asyncio.run(run_episode(env, DOMAIN, seat_team(agent, 0, [make_partner("greedy", env.layout)]), 0, 0, 0, trace=trace.append))
    decisions = [r["decision"] for r in trace if r["decision"]]
    assert record.steps == 3 and record.decisions == len(decisions) >= 1
    assert record.llm_calls >= record.decisions and record.prompt_tokens > 0 and record.completion_tokens > 0
    book = agent.book
    for decision in decisions:
        first_try = decision["attempts"][0]
        assert first_try["parse_error"] is None, first_try["response"]
        # legal_only + grammar: the model can only name a skill whose preconditions held
        assert first_try["failures"] == [] and book.parse(first_try["plan"]) is not None
    assert record.fallbacks == 0


@pytest.mark.slow  # ~30 s of llama.cpp on 2 cores; the slow CI step runs it (default suite < ~5 min)
def test_the_compact_set_reuses_the_static_prefix(tmp_path):
    """The embedded default (compact prompts): after the first decision, llama.cpp evaluates only
    the short state message; the system prompt comes from the KV cache of the previous call."""
    env = envs.make("counter_circuit", envs.Dynamics(horizon=12))
    model = make_model("embedded", cache_dir=None)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    agent = ProAgent(AgentConfig(legal_only=True, prompt="compact"), model, DOMAIN, env)
    assert first.step == 0
    record = asyncio.run(run_episode(env, DOMAIN, seat_team(agent, 0, [make_partner("greedy", env.layout)]), 0, 0, 0))
    assert record.llm_calls >= 2
    evaluated = record.prompt_tokens - record.reused_prompt_tokens
    system_tokens = record.prompt_tokens / record.llm_calls - 200  # the state message is < 200 tokens
    assert record.reused_prompt_tokens >= (record.llm_calls - 1) * system_tokens
    assert evaluated < record.prompt_tokens / record.llm_calls + 200 * (record.llm_calls - 1)
