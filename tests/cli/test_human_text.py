"""`proagent human --domain yokai`: a scripted person types skills in the text interface against a
scripted partner and against ProAgent (loopback model); the person's view holds only colours their
seat has looked at, bad input gets one line, bad arguments exit 2 before any run folder, and the
game is recorded like any other run."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from proagent.cli import build_parser, human_cmd, main
from proagent.cli.human_text import run_text
from proagent.cli.requests import human_request
from proagent.web.human_request import HumanRequest
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.yokai import plan_for, yokai_answer

STATED = re.compile(r"Card (\d+) at \(\d+, \d+\): (red|green|blue|purple)")
BOARD = re.compile(r"(?<![A-Za-z?])([RGBP])(\d+)")  # R3: a known red card 3 on the board
TRUE_CARD = re.compile(r"(\d+):([RGBP])@")  # the trace's full table: 3:R@4,4
MAX_ASKS = 400  # a game takes well under this many lines; a person stuck in a refusal loop gives up
BAD_INPUTS = ["", "fly(3)", "observe(99)", "wait(3)", "<script>alert(1)</script>\x1b[2J", "x" * 5000]


class ScriptedPerson:
    """Types each bad input once, then plays the careful plan from what the view was rendered from
    (the seat's own facts, like the LLM test doubles); keeps every view and every refusal line."""

    def __init__(self) -> None:
        self.views: list[tuple[str, set[int]]] = []  # each view, with the cards this person had observed by then
        self.lines: list[str] = []
        self.observed: set[int] = set()
        self.bad = list(BAD_INPUTS)
        self.facts: dict[str, Any] = {}
        self.asks = 0

    def show(self, view: str, facts: dict[str, Any]) -> None:
        self.views.append((view, set(self.observed)))
        self.facts = facts

    def say(self, line: str) -> None:
        self.lines.append(line)

    def ask(self) -> str | None:
        self.asks += 1
        if self.asks > MAX_ASKS:
            return None
        if self.bad:
            return self.bad.pop(0)
        plan = plan_for(self.facts)
        if plan.startswith("observe("):
            self.observed.add(int(plan[len("observe(") : -1]))
        return plan


def _args(tmp_path: Path, *extra: str) -> HumanRequest:
    args = build_parser().parse_args(["human", "--domain", "yokai", "--runs-dir", str(tmp_path), "--layout", "9c_2p", *extra])
    request = human_cmd.settle(human_request(args))
    assert request.interface == "text"  # Yōkai has a text view: auto picks the text interface
    return request


def _check_honest(person: ScriptedPerson, run: Path) -> int:
    """Every colour a view states or draws is true and of a card this seat had looked at; the count."""
    first = json.loads((run / "trace.jsonl").read_text().splitlines()[0])["state"]
    truth = {int(card): letter for card, letter in TRUE_CARD.findall(first)}
    stated = 0
    for view, observed in person.views:
        for card, colour in [(int(c), k[0].upper()) for c, k in STATED.findall(view)] + [(int(c), k) for k, c in BOARD.findall(view)]:
            assert card in observed and truth[card] == colour, f"card {card} stated {colour} in:\n{view}"
            stated += 1
    return stated


def test_a_person_plays_a_whole_game_against_a_scripted_partner(tmp_path: Path) -> None:
    person = ScriptedPerson()
    assert run_text(_args(tmp_path, "--agent", "careful", "--name", "careful"), person) == 0
    (run,) = tmp_path.glob("*careful")
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    config = json.loads((run / "config.json").read_text())
    assert config["human"] == {"interface": "text", "human_seat": 0} and config["partner"] == "human" and config["seat"] == 1
    assert episode["team"] == ["human", "careful"] and sum(episode["events"]["game_over"]) == 1
    human = episode["agent_stats"][0]
    assert human["human_refused"] == len(BAD_INPUTS) and human["human_decisions"] > 4
    assert json.loads((run / "summary.json").read_text())["human"]["interface"] == "text"
    assert len(person.lines) == len(BAD_INPUTS) and all("\n" not in line and 0 < len(line) <= 300 for line in person.lines)
    assert person.lines[1].startswith("not a skill: unknown skill 'fly'") and "between 0 and 8" in person.lines[2]
    assert person.lines[3].startswith("it is your move") and "\x1b" not in person.lines[4]
    assert _check_honest(person, run) > 5
    assert "Type one skill" in person.views[0][0] and "Possible now: observe(0)" in person.views[0][0]


def test_a_person_plays_against_proagent_on_the_loopback_model(tmp_path: Path) -> None:
    person = ScriptedPerson()
    with FakeChatServer(delay_s=0.0, responder=yokai_answer) as server:
        args = _args(tmp_path, "--agent", "proagent", "--human-seat", "1", "--name", "llm", *loopback_args(server.url))
        assert run_text(args, person) == 0
    (run,) = tmp_path.glob("*llm")
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["team"] == ["proagent", "human"] and episode["seat"] == 0 and episode["llm_calls"] > 0
    assert _check_honest(person, run) > 5


def test_the_terminal_interface_reads_lines_and_an_early_end_keeps_the_trace(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("observe(9)\nobserve(4)\n"))
    argv = ["human", "--domain", "yokai", "--layout", "9c_2p", "--agent", "careful", "--runs-dir", str(tmp_path), "--name", "tty"]
    assert main(argv) == 1  # the input closed mid-game
    out, err = capsys.readouterr()
    assert "=== Yōkai, you are player 0 ===" in out and "not a skill: " in out and "no finished episode" in err
    (run,) = tmp_path.glob("*tty")
    assert (run / "trace.jsonl").read_text() and not (run / "episodes.jsonl").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "nobody"], "unknown partner 'nobody'"),
        (["--human-seat", "2"], "--human-seat 2: 9c_2p has seats 0..1"),
        (["--layout", "9c_9p"], "9c_9p"),
        (["--interface", "text", "--domain", "overcooked", "--layout", "cramped_room"], "has no text view"),
        (["--interface", "web"], "--interface web: the yokai page draws the whole table"),
    ],
)
def test_bad_arguments_are_one_line_and_no_run_folder(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    argv = ["human", "--domain", "yokai", "--layout", "9c_2p", "--agent", "careful", "--runs-dir", str(tmp_path), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert not list(tmp_path.iterdir())
