"""Yōkai's belief probes end to end: `eval --belief-probe` on the loopback model records, per probed
turn and per game, belief accuracy on the cards the seat saw and those it never saw (scored against
the true colours outside the prompt); `play` asks nothing unless told to."""

from __future__ import annotations

import json
from pathlib import Path

import jax

from proagent.cli import main
from proagent.domains import get_domain
from proagent.domains.yokai.memory import SeatMemory
from proagent.domains.yokai.probes import colour_question, true_colours
from proagent.domains.yokai.table import YokaiWorldEnv
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args

DOMAIN = get_domain("yokai")
GRID = ["--domain", "yokai", "--agents", "proagent", "--partners", "careful", "--layouts", "9c_2p", "--seats", "0"]


def _episode(run_dir: Path, pattern: str) -> dict:
    (run,) = run_dir.glob(pattern)
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    return episode


def test_a_question_asks_every_card_on_the_seats_turn_and_knows_what_it_saw() -> None:
    env: YokaiWorldEnv = DOMAIN.make_env("16c_3p", 200)
    table = env.symbolic(env.jit_reset(jax.random.PRNGKey(1)))
    belief = SeatMemory(0).observe(table, [])
    question = colour_question(env, belief, 0)
    assert question is not None and question.items == tuple(str(i) for i in range(16)) and question.turn == 0
    assert question.values == ("red", "green", "blue", "purple") and question.seen == frozenset()
    assert colour_question(env, SeatMemory(1).observe(table, []), 1) is None  # not seat 1's turn
    assert set(true_colours(table).values()) == set(question.values)


def test_eval_with_belief_probes_records_seen_and_unseen_accuracy(tmp_path: Path) -> None:
    from tests.support.responders.yokai import yokai_answer

    with FakeChatServer(delay_s=0.0, responder=yokai_answer) as server:
        args = ["eval", *GRID, "--episodes", "1", "--belief-probe", "--progress", "off", "--name", "probed"]
        assert main([*args, *loopback_args(server.url), "--runs-dir", str(tmp_path)]) == 0
    episode = _episode(tmp_path, "*probed")
    turns = episode["belief_by_turn"]
    assert episode["belief_probes"] == len(turns) >= 3 and [t["turn"] for t in turns] == sorted({t["turn"] for t in turns})
    # The double answers every colour it saw, so the seen half is exact; it never guesses the rest.
    assert episode["belief_seen_accuracy"] == 1.0 and 0.0 <= episode["belief_unseen_accuracy"] < 1.0
    assert all(t["seen_total"] + t["unseen_total"] == 9 for t in turns)
    assert [t["seen_total"] for t in turns] == sorted(t["seen_total"] for t in turns)  # perfect memory: never fewer
    # Metered like every call: one probe call per probed turn on top of the planner's calls.
    assert episode["llm_calls"] >= episode["decisions"] + episode["belief_probes"]


def test_play_asks_no_probe_unless_told(tmp_path: Path) -> None:
    from tests.support.responders.yokai import yokai_answer

    argv = ["play", "--domain", "yokai", "--layout", "9c_2p", "--partner", "careful", "--live", "off", "--runs-dir", str(tmp_path)]
    with FakeChatServer(delay_s=0.0, responder=yokai_answer) as server:
        assert main([*argv, *loopback_args(server.url), "--name", "plain"]) == 0
        assert main([*argv, *loopback_args(server.url), "--name", "probed", "--belief-probe"]) == 0
    plain, probed = _episode(tmp_path, "*plain"), _episode(tmp_path, "*probed")
    assert plain["belief_probes"] == 0 and plain["belief_seen_accuracy"] is None and plain["belief_by_turn"] == []
    assert probed["belief_probes"] > 0 and probed["llm_calls"] == plain["llm_calls"] + probed["belief_probes"]
    trace = [json.loads(line) for line in next(tmp_path.glob("*probed")).joinpath("trace.jsonl").read_text().splitlines()]
    probes = [line["probe"] for line in trace if "probe" in line]
    assert len(probes) == probed["belief_probes"] and all(p["messages"] and p["answers"] for p in probes)


def test_belief_probe_on_a_world_without_probes_is_refused_before_any_run(tmp_path: Path, capsys) -> None:
    args = ["eval", "--domain", "overcooked", "--layouts", "cramped_room", "--partners", "greedy", "--episodes", "1"]
    assert main([*args, "--belief-probe", "--llm", "embedded", "--runs-dir", str(tmp_path), "--progress", "off"]) == 2
    problems = [line for line in capsys.readouterr().err.splitlines() if "belief" in line]
    assert len(problems) == 1  # one line, whichever way the config check lays out its problems
    assert problems[0].endswith("agents[0].prompt: --belief-probe: the overcooked world offers no belief probes")
    assert not list(tmp_path.iterdir())


def test_eval_with_forced_probes_sends_no_unknown_choice_and_records_the_setting(tmp_path: Path) -> None:
    from tests.support.responders.yokai import yokai_answer

    with FakeChatServer(delay_s=0.0, responder=yokai_answer) as server:
        args = ["eval", *GRID, "--episodes", "1", "--belief-probe", "--probe-forced", "--progress", "off", "--name", "forced"]
        assert main([*args, *loopback_args(server.url), "--runs-dir", str(tmp_path), "--trace"]) == 0
    (run,) = tmp_path.glob("*forced")
    config = json.loads((run / "config.json").read_text())
    assert config["config"]["agents"][0]["probe_forced"] is True
    trace = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    probes = [line["probe"] for line in trace if "probe" in line]
    assert probes and all("|unknown" not in p["messages"][0]["content"] for p in probes)
    assert all('"0": "<red|green|blue>"' in p["messages"][0]["content"] for p in probes)
