"""--clock seconds:S writes the token clock's records: each decision's step asked, step landed, the
steps between, tokens and wall seconds; the episode's idle, stale and fallback steps and decisions
per 100 steps. Judged by structure and consistency, never by how long anything took."""

from __future__ import annotations

import asyncio
import json

import pytest

from proagent.agent.background import BackgroundProAgent
from proagent.agent.clock import parse_clock, tick_pace
from proagent.agent.config import AgentConfig
from proagent.builder import llm_agent
from proagent.cli import main
from proagent.domains import get_domain
from proagent.llm.types import Completion, Grounding, Message, StructuredOutput
from proagent.runner.episode import run_episode
from tests.support.responders.overcooked import overcooked_answer

DOMAIN = get_domain("overcooked")
TICK_S, HORIZON, THINK_TICKS = 0.005, 24, 2


class TickedCook:
    """The world's scripted planner answering once THINK_TICKS ticks of the world's clock have passed
    since it was asked, 7 prompt and 11 completion tokens a call: a decision takes world steps however
    fast or loaded the machine is, and can never land in the step it was asked."""

    name = "ticked-cook"

    def __init__(self) -> None:
        self.ticks = 0
        self.tick = tick_pace(TICK_S)

    async def pace(self) -> None:
        await self.tick()
        self.ticks += 1

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
        until = self.ticks + THINK_TICKS
        while self.ticks < until:
            await asyncio.sleep(TICK_S / 5)
        return Completion(text=overcooked_answer(grounding), model=self.name, prompt_tokens=7, completion_tokens=11, latency_s=0.0)


def _episode(fallback: str = "idle") -> tuple:
    env = DOMAIN.make_env("cramped_room", HORIZON)
    config = AgentConfig(clock=f"seconds:{TICK_S}", clock_fallback=fallback)
    model = TickedCook()
    agent = llm_agent(DOMAIN, env, config, model)
    assert isinstance(agent, BackgroundProAgent)
    lines: list[dict] = []

    async def play():
        try:
            team = [agent, DOMAIN.make_partner("greedy", env)]
            return await run_episode(env, DOMAIN, team, 0, 3, 0, trace=lines.append, pace=model.pace)
        finally:
            await agent.aclose()

    return asyncio.run(play()), lines


@pytest.mark.parametrize("fallback", ["idle", "scripted"])
def test_the_seconds_clock_writes_each_decisions_timing_and_the_episodes_clock_fields(fallback: str) -> None:
    record, lines = _episode(fallback)
    made = [line for line in lines if "clock" in line]
    assert made, "decisions landed and were traced"
    for line in made:  # traced where it lands, beside its decision record
        c = line["clock"]
        assert c["lands"] == line["step"] and c["based_on"] == line["decision"]["step"] < c["lands"]
        calls = line["decision"]["llm_calls"]
        assert c["steps"] == c["lands"] - c["based_on"] >= THINK_TICKS * calls and c["wall_s"] > 0
        assert (c["tokens_in"], c["tokens_out"]) == (7 * calls, 11 * calls)
    waiting = {s for line in made for s in range(line["clock"]["based_on"], line["clock"]["lands"])}
    thinking = {line["step"] for line in lines if line.get("thinking")}
    assert waiting <= thinking, "the agent was thinking from the step it asked to the step before it landed"
    stats = record.agent_stats[0]
    assert stats["clock_idle_steps"] + stats["clock_fallback_steps"] == len(thinking)
    assert stats["decisions_per_100_steps"] == pytest.approx(100 * len(made) / len(lines))
    assert stats["decision_steps_mean"] == pytest.approx(sum(line["clock"]["steps"] for line in made) / len(made))
    assert record.clock_stale_steps == stats["clock_stale_steps"] > 0, "a landed skill runs on a world it did not read"
    if fallback == "scripted":
        assert stats["clock_fallback_steps"] > 0 and stats["clock_idle_steps"] == 0
    else:
        assert stats["clock_fallback_steps"] == 0 and all(
            line["actions"][0] == "stay" for line in lines if line.get("thinking")
        )


def test_play_under_a_seconds_clock_records_the_clock(tmp_path) -> None:
    code = main([
        "play", "--llm", "scripted", "--clock", "seconds:0.001", "--horizon", "12", "--live", "off", "--no-gif",
        "--runs-dir", str(tmp_path),
    ])  # fmt: skip
    assert code == 0
    (run,) = tmp_path.iterdir()
    assert json.loads((run / "config.json").read_text())["agent"]["clock"] == "seconds:0.001"
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    made = [line["clock"] for line in trace if "clock" in line]
    assert made and all(c["steps"] == c["lands"] - c["based_on"] >= 0 and c["wall_s"] >= 0 for c in made)
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["clock_idle_steps"] is not None and episode["decisions_per_100_steps"] > 0
    assert parse_clock("seconds:0.001").seconds_per_step == 0.001


def test_the_ticks_keep_their_period_when_a_sleep_wakes_late_and_restart_after_a_late_step() -> None:
    """A fake clock: each sleep wakes 0.1 s late, and one step runs 2.5 s. The steps start on ticks a
    second apart (1.1, 2.1, 3.1: a late wake-up does not move the next tick), the step after the slow
    one at once, and the ticks go on a second after it."""
    now = [0.0]

    async def late_sleep(seconds: float) -> None:
        now[0] += seconds + 0.1

    pace = tick_pace(1.0, clock=lambda: now[0], sleep=late_sleep)
    starts = []

    async def steps() -> None:
        for work in (0.0, 0.0, 0.0, 0.0, 2.5, 0.0, 0.0):
            await pace()
            starts.append(round(now[0], 6))
            now[0] += work

    asyncio.run(steps())
    assert starts == [0.0, 1.1, 2.1, 3.1, 4.1, 6.6, 7.7]
