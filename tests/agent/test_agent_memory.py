"""Memory: a FIFO of the agent's own decisions, the last ``memory_k`` rendered into each prompt."""

from __future__ import annotations

import dataclasses

import jax
import pytest
from agent_helpers import act, answer, make_agent

from envs import Action
from proagent.agent.config import AgentConfig
from proagent.agent.memory import Memory, MemoryRecord
from tests.support.scripted import ScriptedModel


def _record(step: int, skill: str = "wait(1)") -> MemoryRecord:
    return MemoryRecord(step=step, state=f"s{step}", analysis=None, intention=None, belief=None, skill=skill, outcome="done")


def test_fifo_capacity_and_recent():
    memory = Memory(capacity=3)
    assert memory.last() is None and memory.recent(2) == []
    for step in range(5):
        memory.add(_record(step))
    assert [r.step for r in memory.records] == [2, 3, 4]
    assert [r.step for r in memory.recent(2)] == [3, 4]
    assert [r.step for r in memory.recent(3)] == [2, 3, 4]
    assert [r.step for r in memory.recent(10)] == [2, 3, 4]
    assert memory.recent(0) == [] and memory.recent(-1) == []
    assert memory.last().step == 4
    assert memory.find_by_step(3).step == 3
    assert memory.find_by_step(0) is None  # evicted


def test_recent_returns_copies_of_the_order_not_the_deque():
    memory = Memory(capacity=4)
    for step in range(3):
        memory.add(_record(step))
    recent = memory.recent(2)
    recent.clear()
    assert len(memory.records) == 3


def test_config_bounds():
    with pytest.raises(ValueError):
        AgentConfig(memory_k=-1)
    with pytest.raises(ValueError):
        AgentConfig(memory_capacity=0)


@pytest.fixture(scope="module")
def start(cramped):
    return cramped.symbolic(cramped.jit_reset(jax.random.PRNGKey(0)))


def _decisions(cramped, start, n: int, **config):
    """n decisions on a still kitchen: plans wait(2), so decisions at steps 0, 2, 4, ...

    The kitchen is the reset state at every call (only its step number matters to wait)."""
    model = ScriptedModel([answer("wait(2)", analysis=f"decision {i}") for i in range(n)])
    agent = make_agent(cramped, model, **config)
    for t in range(2 * (n - 1) + 1):
        kitchen = dataclasses.replace(start, step=t)
        act(agent, kitchen, [], int(Action.STAY) if t else None, 0.0)
    assert len(model.calls) == n
    return agent, model


def test_records_show_up_in_the_next_prompt(cramped, start):
    agent, model = _decisions(cramped, start, 4, memory_k=2)
    assert [(r.step, r.skill, r.outcome, r.analysis) for r in agent.memory.records] == [
        (0, "wait(2)", "done", "decision 0"),
        (2, "wait(2)", "done", "decision 1"),
        (4, "wait(2)", "done", "decision 2"),
        (6, "wait(2)", "running", "decision 3"),
    ]
    assert "Recent history" not in model.calls[0].messages[1].content  # nothing to remember yet
    second = model.calls[1].messages[1].content
    assert "Recent history (oldest first):\n- step 0: you chose wait(2) (done); you expected your teammate to wait(1)\n" in second
    last = model.calls[3].messages[1].content
    assert "- step 2: you chose wait(2) (done)" in last
    assert "- step 4: you chose wait(2) (done)" in last
    assert "- step 0:" not in last  # only the last memory_k = 2 records
    assert last.index("- step 2:") < last.index("- step 4:")


def test_memory_k_zero_renders_no_memory(cramped, start):
    agent, model = _decisions(cramped, start, 3, memory_k=0)
    assert len(agent.memory.records) == 3  # still remembered, just not shown
    for call in model.calls:
        assert "Recent history" not in call.messages[1].content
        assert "you chose" not in call.messages[1].content


def test_capacity_bounds_what_the_prompt_can_show(cramped, start):
    agent, model = _decisions(cramped, start, 4, memory_k=5, memory_capacity=2)
    assert [r.step for r in agent.memory.records] == [4, 6]
    # at the fourth decision (step 6) memory held steps 2 and 4 only: memory_k = 5 cannot show more
    last = model.calls[3].messages[1].content
    assert last.count("you chose wait(2)") == 2
    assert "- step 2:" in last and "- step 4:" in last and "- step 0:" not in last


def test_memory_summarises_the_state_at_decision_time(cramped, start):
    agent, _ = _decisions(cramped, start, 1)
    assert agent.memory.last().state == "you at [1, 2] holding nothing; teammate at [3, 1] holding nothing"
