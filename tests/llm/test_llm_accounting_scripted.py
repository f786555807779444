"""UsageMeter totals and the ScriptedModel test double."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from proagent.llm import Completion, LLMError, Message, MeteredModel, Model, StructuredOutput, UsageMeter
from tests.support.scripted import ScriptedModel


def _c(cached: bool = False, cost: float | None = 0.01, latency: float = 1.0) -> Completion:
    return Completion(text="x", model="m", prompt_tokens=100, completion_tokens=10, latency_s=0.0 if cached else latency, cost_usd=cost, cached=cached)


def test_meter_summary() -> None:
    meter = UsageMeter()
    assert meter.summary().calls == 0 and meter.summary().cost_usd is None
    for c in (_c(), _c(cost=None, latency=3.0), _c(cached=True)):
        meter.record(c)
    s = meter.summary()
    assert (s.calls, s.cached_calls, s.fresh_calls) == (3, 1, 2)
    assert (s.prompt_tokens, s.completion_tokens) == (300, 30)
    assert s.total_latency_s == pytest.approx(4.0) and s.mean_fresh_latency_s == pytest.approx(2.0)
    assert s.cost_usd == pytest.approx(0.01) and s.calls_without_cost == 1


def test_scripted_queue_function_errors_and_recording() -> None:
    schema = StructuredOutput(name="p", json_schema={"type": "object"})
    model = ScriptedModel(["a b c", ValueError("scripted failure")], respond=lambda call: f"n={len(call.messages)}")
    assert isinstance(model, Model)
    msgs = [Message(role="user", content="one two")]

    async def run() -> list[str]:
        out = [(await model.generate(msgs, structured=schema, seed=9)).text]
        with pytest.raises(ValueError):
            await model.generate(msgs)
        out.append((await model.generate(msgs + msgs)).text)
        return out

    assert asyncio.run(run()) == ["a b c", "n=2"]
    assert [c.seed for c in model.calls] == [9, None, None]
    assert model.calls[0].structured == schema and model.calls[2].messages == msgs + msgs
    with pytest.raises(LLMError, match="no scripted response"):
        asyncio.run(ScriptedModel().generate(msgs))


def test_metered_wraps_any_model() -> None:
    metered = MeteredModel(ScriptedModel(["hello world"]))
    asyncio.run(metered.generate([Message(role="user", content="hi")]))
    assert metered.meter.summary().completion_tokens == 2 and metered.name == "test-double"


def test_records_are_frozen_and_validated() -> None:
    with pytest.raises(ValidationError):
        Message(role="tool", content="x")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        StructuredOutput(name="has space", json_schema={})
    c = _c()
    with pytest.raises(ValidationError):
        c.text = "y"  # type: ignore[misc]
