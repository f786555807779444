"""Running evaluations: resume after a kill, determinism with the cache, concurrency = serial,
the budget guard, failures, traces and re-rendered reports. Scripted LLM, 40-step episodes."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from eval_helpers import comparable, config, lines, play, respond, run_eval

from proagent.cli import main
from proagent.eval.config import ConfigError
from proagent.eval.plan import plan_jobs
from proagent.eval.records import read_records
from proagent.eval.runner import Evaluator
from proagent.eval.session import resume_run, start_run
from proagent.eval.world import World
from proagent.llm.types import LLMConfigError, LLMUnavailableError
from tests.support.scripted import ScriptedCall, ScriptedModel


class Killed(BaseException):
    """Stands in for SIGKILL/Ctrl-C: nothing after it runs, in-flight episodes are lost."""


def test_kill_then_resume_loses_nothing_and_counts_nothing_twice(world, tmp_path):
    cfg = config()  # 2 agents x 2 partners x 2 seats x 2 episodes = 16
    handle = start_run(cfg, world, "pytest", tmp_path)
    finished = []

    def kill_after_five(record):
        finished.append(record)
        if len(finished) == 5:
            raise Killed

    evaluator = Evaluator(cfg, handle.resolved.domain, handle.resolved.envs, world, handle.folder)
    with pytest.raises(Killed):
        asyncio.run(evaluator.run(plan_jobs(cfg, list(handle.resolved.envs)), on_record=kill_after_five))
    log = handle.folder.path / "episodes.jsonl"
    saved = [r.key.id for r in read_records(log)]  # episodes that ended while the loop wound down count too
    assert {r.key.id for r in finished} <= set(saved) and len(saved) < 16
    first = log.read_text().splitlines()[0]
    with log.open("a") as fh:  # a duplicate line, then a writer killed half-way through a line
        fh.write(first + "\n" + first[: len(first) // 2])
    assert [r.key.id for r in read_records(log)] == saved

    resumed = resume_run(handle.folder.path, {}, world, "pytest --resume")
    outcome = play(resumed, world)
    assert outcome.played == 16 - len(saved) and outcome.stopped is None and len(outcome.records) == 16
    records = read_records(log)
    assert sorted(r.key.id for r in records) == sorted(j.key.id for j in plan_jobs(cfg, ["cramped_room"]))
    assert len(log.read_text().splitlines()) == 16 + 2  # the torn line was sealed, not glued to the next
    _, straight = run_eval(cfg, world, tmp_path)
    assert comparable(records) == comparable(straight.records)  # as if never interrupted
    assert len(json.loads((handle.folder.path / "config.json").read_text())["sessions"]) == 2
    assert play(resume_run(handle.folder.path, {}, world, "again"), world).played == 0


def test_same_seeds_and_cache_replay_the_same_table(env_cache, tmp_path):
    def moody(spec):  # answers differ from run to run unless they come from the cache
        rng = random.Random()
        def answer(call: ScriptedCall) -> str:
            return "Plan: wait(1)" if rng.random() < 0.3 else respond(call)

        return ScriptedModel(respond=answer, name="moody")

    world = World(model_factory=moody, envs=env_cache)
    cfg = config(agents=[{"kind": "proagent"}], partners=["greedy"], cache=True, cache_dir=tmp_path / "cache")
    first_handle, first = run_eval(cfg, world, tmp_path)
    second_handle, second = run_eval(cfg, world, tmp_path)
    assert all(r.cached_calls == r.llm_calls > 0 for r in second.records)
    assert comparable(first.records) == comparable(second.records)
    assert (first_handle.folder.path / "table.md").read_text() == (second_handle.folder.path / "table.md").read_text()


def test_concurrent_lockstep_gives_the_records_of_serial_single_stepping(world, tmp_path):
    _, serial = run_eval(config(concurrency=1, stepping="single"), world, tmp_path)
    _, concurrent = run_eval(config(concurrency=4, stepping="lockstep"), world, tmp_path)
    assert comparable(serial.records) == comparable(concurrent.records)
    assert {r.agent for r in serial.records} == {"proagent", "greedy"} and any(r.score > 0 for r in serial.records)


def test_budget_guard_stops_new_episodes_keeps_finished_ones(priced_world, tmp_path):
    cfg = config(agents=[{"kind": "proagent"}], partners=["greedy"], seats=[0], episodes=6, concurrency=2, max_cost_usd=0.05)
    handle, outcome = run_eval(cfg, priced_world, tmp_path)
    assert outcome.stopped and outcome.stopped.startswith("budget reached") and outcome.remaining >= 1
    saved = read_records(handle.folder.path / "episodes.jsonl")
    assert len(saved) == outcome.played >= 1 and all(r.spent_usd > 0 for r in saved)
    assert sum(r.spent_usd for r in saved) > 0.05
    with pytest.raises(ConfigError, match="cannot change: partners"):
        resume_run(handle.folder.path, {"partners": ["stay"]}, priced_world, "x")
    rest = play(resume_run(handle.folder.path, {"max_cost_usd": None}, priced_world, "x"), priced_world)
    assert rest.stopped is None and len(rest.records) == 6 and rest.played == 6 - len(saved)


def test_failed_episodes_are_logged_and_left_for_resume(env_cache, tmp_path):
    class Broken(ScriptedModel):
        def __init__(self, error: Exception) -> None:
            super().__init__(name="broken")
            self.error = error

        async def generate(self, messages, **kw):
            raise self.error

    world = World(model_factory=lambda spec: Broken(LLMUnavailableError("down")), envs=env_cache)
    handle, outcome = run_eval(config(agents=[{"kind": "greedy"}, {"kind": "proagent"}], max_failures=3), world, tmp_path)
    assert len(outcome.failures) == 3 and "max_failures" in outcome.stopped
    assert len(outcome.records) >= 4 and all(r.agent == "greedy" for r in outcome.records)  # no LLM needed
    assert len(lines(handle.folder.path / "failures.jsonl")) == 3
    world = World(model_factory=lambda spec: Broken(LLMConfigError("bad key")), envs=env_cache)
    _, outcome = run_eval(config(agents=[{"kind": "proagent"}]), world, tmp_path)
    assert outcome.stopped.startswith("LLM configuration error") and outcome.played == 0 and len(outcome.failures) <= 4


def test_trace_lines_carry_key_and_attempt(world, tmp_path):
    handle, outcome = run_eval(config(agents=[{"kind": "proagent"}], partners=["greedy"], seats=[1], episodes=1, trace=True), world, tmp_path)
    (record,) = outcome.records
    trace = lines(handle.folder.path / "trace.jsonl")
    assert len(trace) == record.steps and {(t["key"], t["attempt"]) for t in trace} == {(record.key.id, record.attempt)}
    assert any(t["decision"] for t in trace)


def test_report_rerenders_from_records_only(world, tmp_path, capsys):
    handle, _ = run_eval(config(episodes=1), world, tmp_path)
    path = handle.folder.path
    names = ["table.md", "table.csv", "table.json", "metrics.md", "metrics.csv", "metrics.json"]
    before = {n: (path / n).read_text() for n in names}
    for n in [*names, "scores.png"]:
        (path / n).unlink()
    assert main(["report", str(path), "--quiet"]) == 0
    assert {n: (path / n).read_text() for n in names} == before and (path / "scores.png").stat().st_size > 0
    table = json.loads(before["table.json"])["by_partner"]
    assert [c["agent"] + "/" + c["partner"] for c in table["columns"]] == ["proagent/greedy", "proagent/stay", "greedy/greedy", "greedy/stay"]
    assert [(r["labels"]["layout"], r["labels"]["seat"]) for r in table["rows"]] == [("cramped_room", 0), ("cramped_room", 1)]
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_when_every_episode_fails_the_report_says_how_to_resume(env_cache, tmp_path):
    import io

    from rich.console import Console

    from proagent.eval.session import finish_run

    class Down(ScriptedModel):
        async def generate(self, messages, **kw):
            raise LLMUnavailableError("server down")

    world = World(model_factory=lambda spec: Down(name="down"), envs=env_cache)
    handle, outcome = run_eval(config(agents=[{"kind": "proagent"}], partners=["greedy"], seats=[0], episodes=1), world, tmp_path)
    assert outcome.played == 0 and len(outcome.failures) == 1 and outcome.stopped is None
    out = io.StringIO()
    finish_run(handle, outcome, Console(file=out, width=60))  # narrower than the command: it must not wrap
    text = out.getvalue()
    assert "1 episode(s) failed" in text and f"proagent eval --resume {handle.folder.path}" in text
