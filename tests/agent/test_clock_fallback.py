"""--clock-fallback under the token clock, on a designed episode: a double whose every call costs
exactly COST completion tokens (and no prompt tokens), so a decision of c calls costs
floor(c * COST / N) steps. idle idles through them, continue keeps executing the skill its step
limit cut off, scripted lets the world's scripted planner act meanwhile; each counts as the arithmetic says."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace

import pytest

from proagent.agent.config import AgentConfig
from proagent.builder import clock_problem, llm_agent
from proagent.cli import main
from proagent.domains import get_domain
from proagent.llm.types import Completion, Grounding, Message, StructuredOutput
from proagent.runner.episode import run_episode
from tests.support.responders.overcooked import overcooked_answer

DOMAIN = get_domain("overcooked")
COST, PER_STEP = 100, 25  # every call: 100 tokens; --clock tokens:25 -> four steps a call
HORIZON = 80
IDLE = DOMAIN.action_names[DOMAIN.idle_action]


class FixedCostModel:
    """The world's scripted planner as a double whose every answer costs COST completion tokens."""

    name = "fixed-cost"

    def __init__(self) -> None:
        self.calls = 0

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
        self.calls += 1
        text = overcooked_answer(grounding)
        return Completion(text=text, model=self.name, prompt_tokens=0, completion_tokens=COST, latency_s=0.0)


def _episode(fallback: str, skill_timeout: int = 60, clock: str = f"tokens:{PER_STEP}") -> tuple:
    env = DOMAIN.make_env("cramped_room", HORIZON)
    model = FixedCostModel()
    config = AgentConfig(clock=clock, clock_fallback=fallback, skill_timeout=skill_timeout)
    agent = llm_agent(DOMAIN, env, config, model)
    team = [agent, DOMAIN.make_partner("greedy", env)]
    lines: list[dict] = []
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 7, 0, trace=lines.append))
    return record, lines, model


def _waiting(lines: list[dict]) -> list[int]:
    """The steps a decision was under way (asked, not yet acted on), from the clock records alone."""
    steps: set[int] = set()
    for line in lines:
        if "clock" in line:
            steps.update(range(line["clock"]["based_on"], min(line["clock"]["lands"], len(lines))))
    return sorted(steps)


def _check_arithmetic(record, lines: list[dict], model: FixedCostModel) -> list[int]:
    made = [line for line in lines if "clock" in line]
    assert made and sum(line["decision"]["llm_calls"] for line in made) == model.calls, "every call is a decision's"
    for line in made:  # the known cost: floor(calls * COST / N) steps, tokens as charged
        c = line["clock"]
        assert c["tokens_out"] == COST * line["decision"]["llm_calls"] and c["tokens_in"] == 0
        assert c["steps"] == c["tokens_out"] // PER_STEP == c["lands"] - c["based_on"] and c["wall_s"] >= 0
    waiting = _waiting(lines)
    stats = record.agent_stats[0]
    assert stats["clock_idle_steps"] + stats["clock_fallback_steps"] == len(waiting)
    assert all(lines[s].get("thinking") for s in waiting) and not any(
        lines[s].get("thinking") for s in range(len(lines)) if s not in waiting
    )
    assert stats["decisions_per_100_steps"] == pytest.approx(100 * len(made) / HORIZON)
    stale = [
        s for s in range(len(lines)) if s not in waiting and lines[s]["skill"] is not None and _landed_late(lines, s)
    ]
    assert stats["clock_stale_steps"] == len(stale), "stale steps: those run on a skill decided steps before it landed"
    return waiting


def _landed_late(lines: list[dict], step: int) -> bool:
    """Whether the skill run at ``step`` came from a decision that landed later than it was asked."""
    for s in range(step, -1, -1):
        landed = [c for c in (line["clock"] for line in lines if "clock" in line) if c["lands"] == s]
        if landed:
            return landed[-1]["steps"] > 0
    return False


def test_idle_idles_through_every_decision_and_counts_as_the_arithmetic_says() -> None:
    record, lines, model = _episode("idle")
    waiting = _check_arithmetic(record, lines, model)
    assert waiting and all(lines[s]["actions"][0] == IDLE for s in waiting)
    assert record.agent_stats[0]["clock_fallback_steps"] == 0 and not any("fallback_skill" in line for line in lines)


def test_continue_keeps_executing_the_skill_its_step_limit_cut_off_then_idles() -> None:
    record, lines, model = _episode("continue", skill_timeout=2)
    waiting = _check_arithmetic(record, lines, model)
    continued = [s for s in waiting if "fallback_skill" in lines[s]]
    assert continued and record.agent_stats[0]["clock_fallback_steps"] == len(continued)
    for s in continued:  # the skill that ran the step before the decision (or before this step) goes on
        assert lines[s]["fallback_skill"] in (lines[s - 1]["skill"], lines[s - 1].get("fallback_skill"))
    assert any(lines[s]["actions"][0] != IDLE for s in continued), "the continued skill moves the agent"
    assert all(lines[s]["actions"][0] == IDLE for s in waiting if s not in continued), "a skill that cannot run: idle"
    _, idle_lines, _ = _episode("idle", skill_timeout=2)  # the same episode up to the first step continue acts
    first = continued[0]
    assert [line["actions"] for line in idle_lines[:first]] == [line["actions"] for line in lines[:first]]
    assert idle_lines[first]["actions"][0] == IDLE and "fallback_skill" not in idle_lines[first]


def test_scripted_lets_the_worlds_planner_act_meanwhile_without_a_model_call() -> None:
    record, lines, model = _episode("scripted")
    waiting = _check_arithmetic(record, lines, model)  # includes: every model call belongs to a decision
    acted = [s for s in waiting if "fallback_skill" in lines[s]]
    assert acted and record.agent_stats[0]["clock_fallback_steps"] == len(acted)
    assert any(e["agent"] == 0 for s in acted for e in lines[s]["events"]), "the stand-in does real work"
    _, idle_lines, _ = _episode("idle")
    assert not any(e["agent"] == 0 for s in _waiting(idle_lines) for e in idle_lines[s]["events"]), "idling does none"


def test_a_fallback_replays_exactly() -> None:
    first, lines, _ = _episode("scripted")
    again, lines_again, _ = _episode("scripted")
    assert [line["actions"] for line in lines] == [line["actions"] for line in lines_again]
    assert first.agent_stats[0] == {
        **again.agent_stats[0],
        "overhead_ms_median": first.agent_stats[0]["overhead_ms_median"],
    }


def test_fallbacks_that_cannot_run_are_one_line() -> None:
    assert "waits for every decision" in (clock_problem(DOMAIN, AgentConfig(clock_fallback="continue")) or "")
    bare = copy.copy(DOMAIN)
    bare.capabilities = replace(DOMAIN.capabilities, scripted=None)
    problem = clock_problem(bare, AgentConfig(clock="tokens:50", clock_fallback="scripted")) or ""
    assert problem.startswith("--clock-fallback scripted:") and "no scripted planner" in problem
    assert clock_problem(DOMAIN, AgentConfig(clock="tokens:50"), topology=True) is not None
    assert clock_problem(DOMAIN, AgentConfig(clock="tokens:50", clock_fallback="scripted")) is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--clock-fallback", "continue"], "--clock-fallback continue: under --clock turns"),
        (["--domain", "cube", "--clock", "tokens:50", "--topology", "debate"], "MAEIL's conversation"),
        (["--clock", "tokens:50", "--clock-fallback", "later"], "invalid choice"),
    ],
)
def test_bad_fallbacks_are_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture, tmp_path
) -> None:
    runs = tmp_path / "runs"
    try:
        code = main(["play", *argv, "--llm", "scripted", "--live", "off", "--runs-dir", str(runs)])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    assert code == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.strip()]
    assert message in err[-1] and not (runs.exists() and any(runs.iterdir())), "refused before any run folder"
