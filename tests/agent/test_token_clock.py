"""--clock: a token clock charges each decision world steps (idle until it lands, partners act
every step), deterministically; a huge budget per step is the turn clock; turn-based worlds and
bad specs are refused in one line."""

from __future__ import annotations

import asyncio

import pytest

from proagent.agent.clock import parse_clock
from proagent.agent.config import AgentConfig
from proagent.builder import llm_agent
from proagent.cli import main
from proagent.domains import get_domain
from proagent.runner.episode import run_episode
from tests.support.responders.overcooked import overcooked_answer
from tests.support.scripted import ScriptedModel, answering

DOMAIN = get_domain("overcooked")


def _episode(clock: str, horizon: int = 60) -> tuple:
    env = DOMAIN.make_env("cramped_room", horizon)
    model = ScriptedModel(respond=answering(overcooked_answer))
    agent = llm_agent(DOMAIN, env, AgentConfig(clock=clock), model)
    team = [agent, DOMAIN.make_partner("greedy", env)]
    lines: list[dict] = []
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, 3, 0, trace=lines.append))
    return record, lines, agent


def test_a_huge_budget_per_step_plays_the_turn_clock_episode() -> None:
    turns, turn_lines, _ = _episode("turns")
    tokens, token_lines, _ = _episode("tokens:1000000")
    assert [line["actions"] for line in token_lines] == [line["actions"] for line in turn_lines]
    assert (tokens.score, tokens.decisions) == (turns.score, turns.decisions)


def test_a_token_clock_charges_decisions_steps_and_replays_exactly() -> None:
    first, lines, _ = _episode("tokens:50")
    again, lines_again, _ = _episode("tokens:50")
    assert again.score == first.score
    assert [line["actions"] for line in lines] == [line["actions"] for line in lines_again]
    stats = first.agent_stats[0]
    assert stats["clock_idle_steps"] > 0 and stats["decision_steps_mean"] >= 1
    made = [line["clock"] for line in lines if "clock" in line]
    assert made and all(c["lands"] - c["based_on"] == c["steps"] >= 0 for c in made)
    clock = parse_clock("tokens:50")
    assert all(c["steps"] == clock.steps_for(c["tokens_in"], c["tokens_out"]) for c in made)
    idle = DOMAIN.action_names[DOMAIN.idle_action]
    for c in made:  # the agent idles from the step it asked until the step before its decision lands
        assert all(lines[s]["actions"][0] == idle for s in range(c["based_on"], min(c["lands"], len(lines))))
    turns, _, _ = _episode("turns")
    assert first.decisions <= turns.decisions


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--domain", "yokai", "--layout", "9c_2p", "--clock", "tokens:100"], "turn-based"),
        (["--clock", "tokens:0"], "greater than or equal to 1"),
        (["--clock", "minutes:3"], "expected turns, tokens:N"),
    ],
)
def test_bad_clocks_are_one_clear_line(argv: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    try:
        code = main(["play", *argv, "--llm", "openai/test", "--api-base", "http://127.0.0.1:9", "--live", "off"])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    assert code == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.strip()]
    assert message in err[-1]


def test_a_token_clock_run_replays_bit_for_bit_from_the_cache(tmp_path) -> None:
    """The second run asks the model nothing (every answer from the cache) and plays the same
    steps: the same actions, and each decision the same tokens, steps and landing."""
    from proagent.llm.cache import CachedModel

    def run() -> tuple[list, list, ScriptedModel]:
        env = DOMAIN.make_env("cramped_room", 60)
        inner = ScriptedModel(respond=answering(overcooked_answer))
        agent = llm_agent(DOMAIN, env, AgentConfig(clock="tokens:50"), CachedModel(inner, tmp_path / "cache"))
        lines: list[dict] = []
        asyncio.run(run_episode(env, DOMAIN, [agent, DOMAIN.make_partner("greedy", env)], 0, 3, 0, trace=lines.append))
        timings = [{k: v for k, v in line["clock"].items() if k != "wall_s"} for line in lines if "clock" in line]
        return [line["actions"] for line in lines], timings, inner

    actions, timings, first = run()
    again, timings_again, second = run()
    assert first.calls and not second.calls, "the second run is answered from the cache alone"
    assert again == actions and timings_again == timings and any(t["steps"] > 0 for t in timings)
