"""Every LLM call of every seat is metered: with ProAgent in every seat, the records' team totals
(calls, tokens, money), the tables' team columns, the progress line and the budget all equal what
the double was asked, not the evaluated seat's share of it."""

from __future__ import annotations

import asyncio

import pytest
from eval_helpers import PricedModel, config, run_eval

from proagent.eval.config import AgentSpec
from proagent.eval.plan import plan_jobs
from proagent.eval.runner import Evaluator
from proagent.eval.session import resume_run
from proagent.eval.world import EnvCache, World
from proagent.llm.types import Completion, Grounding, Message, StructuredOutput

PRICE = 0.01


class CountingModel:
    """A priced scripted model that counts every call it answers, and the tokens of each."""

    def __init__(self) -> None:
        self._inner = PricedModel(PRICE)
        self.calls = 0
        self.tokens = 0

    @property
    def name(self) -> str:
        return self._inner.name

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        done = await self._inner.generate(
            messages, structured=structured, max_tokens=max_tokens, temperature=temperature, seed=seed, grounding=grounding
        )
        self.calls += 1
        self.tokens += done.prompt_tokens + done.completion_tokens
        return done


@pytest.fixture
def counted(env_cache: EnvCache) -> tuple[World, list[CountingModel]]:
    made: list[CountingModel] = []

    def factory(spec: AgentSpec) -> CountingModel:
        made.append(CountingModel())
        return made[-1]

    return World(model_factory=factory, envs=env_cache), made


def _all_proagent(**fields: object):
    return config(**{"agents": [{"kind": "proagent", "llm": "scripted"}], "partners": ["proagent"], "seats": [0, 1], **fields})


def test_team_totals_are_every_call_of_every_seat(counted, tmp_path):
    world, models = counted
    handle, outcome = run_eval(_all_proagent(episodes=1), world, tmp_path)
    records = outcome.records
    assert outcome.failures == [] and len(records) == 2
    made = sum(m.calls for m in models)
    assert sum(r.team_llm_calls for r in records) == made > sum(r.llm_calls for r in records)
    assert sum(r.team_tokens for r in records) == sum(m.tokens for m in models)
    for r in records:
        assert [s.llm_calls for s in r.seat_usage] == [stats["llm_calls"] for stats in r.agent_stats]
        assert r.seat_usage[r.seat].llm_calls == r.llm_calls and all(s.llm_calls > 0 for s in r.seat_usage)
        assert r.team_cost_usd == pytest.approx(PRICE * r.team_llm_calls) == pytest.approx(r.spent_usd)
    metrics = (handle.folder.path / "metrics.md").read_text(encoding="utf-8")
    assert "team_llm_calls" in metrics and "team_tokens" in metrics


def test_the_pair_table_shows_the_agent_and_the_team(counted, tmp_path):
    from proagent.eval.session import report_run

    world, models = counted
    handle, outcome = run_eval(_all_proagent(episodes=1, seats=[0]), world, tmp_path)
    report, _ = report_run(handle.folder.path)
    (row,) = report.pairs.rows
    (record,) = outcome.records
    assert row.stats["team_llm_calls"].mean == record.team_llm_calls == sum(m.calls for m in models)
    assert row.stats["llm_calls"].mean == record.llm_calls < record.team_llm_calls


def test_progress_and_budget_count_every_seat_across_sessions(counted, tmp_path):
    world, models = counted
    handle, _ = run_eval(_all_proagent(episodes=1, seats=[0]), world, tmp_path)
    handle = resume_run(handle.folder.path, {"episodes": 2}, world, "pytest --resume")
    evaluator = Evaluator(handle.config, handle.resolved.domain, handle.resolved.envs, world, handle.folder)
    asyncio.run(evaluator.run(plan_jobs(handle.config, list(handle.resolved.envs))))
    made = sum(m.calls for m in models)
    snapshot = evaluator.snapshot()
    assert len(evaluator.records) == 2 and snapshot.llm_calls == made, "the first session's partner calls count too"
    assert snapshot.tokens == sum(m.tokens for m in models)
    assert evaluator.budget is not None and evaluator.budget.spent == pytest.approx(PRICE * made), "--max-cost counts every seat"
