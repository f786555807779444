"""Signs of life: `play` without a terminal writes a plain progress line every N decisions (and
every T seconds, also while one decision runs long); on a terminal a spinner counts the seconds
of the decision under way; `train` says it is still working when its own lines stop."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from proagent.cli import main
from proagent.cli.progress_lines import DecisionSpinner, Heartbeat, PlainProgress, ProgressSettings
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args

LINE = re.compile(r"^episode (\d+)/(\d+): step (\d+)/(\d+), score (\S+), (\d+) decisions, ([\d.]+) s/decision$")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(delay_s=0.0) as srv:
        yield srv


def test_play_without_a_terminal_writes_a_line_every_n_decisions(server, tmp_path, capsys):
    argv = ["play", "--layout", "cramped_room", "--partner", "greedy", "--horizon", "12", "--live", "auto", "--no-gif"]
    argv += ["--episodes", "2", "--progress-every", "2", "--progress-seconds", "600", "--runs-dir", str(tmp_path)]
    assert main([*argv, *loopback_args(server.url)]) == 0
    err = capsys.readouterr().err.splitlines()
    (run,) = tmp_path.iterdir()
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    for number, record in enumerate(records, start=1):
        found = [m.groups() for line in err if (m := LINE.match(line)) and int(m.group(1)) == number]
        decisions = [int(g[5]) for g in found]
        assert record["decisions"] >= 2 and decisions == list(range(2, record["decisions"] + 1, 2)), err
        assert all(g[1] == "2" and g[3] == "12" for g in found)
        steps = [int(g[2]) for g in found]
        assert steps == sorted(steps) and 1 <= steps[0] and steps[-1] <= 12


def _view(step: int, score: float, decisions: int) -> SimpleNamespace:
    from proagent.agent.proagent import ProAgent
    from proagent.agent.records import AgentStats

    agent = ProAgent.__new__(ProAgent)  # only its counters are read
    agent.stats = AgentStats(decisions=decisions)
    return SimpleNamespace(state=SimpleNamespace(step=step, horizon=10), score=score, team=[agent, object()])


def test_a_line_every_t_seconds_also_while_a_decision_runs_long():
    clock, lines = FakeClock(), []
    progress = PlainProgress(ProgressSettings(every_decisions=100, every_s=5), "episode 1/1", lines.append, clock)
    clock.now = 4.0
    progress.tick()
    assert lines == []
    clock.now = 5.0
    progress.tick()
    assert lines == ["episode 1/1: starting, score 0, 0 decisions, no decision yet; deciding for 5 s"]
    clock.now = 6.0
    progress.on_step(_view(3, 20.0, 2))  # 2 decisions, 1 s after the last line: not due
    clock.now = 9.5
    progress.tick()
    assert len(lines) == 1
    clock.now = 12.0
    progress.tick()  # 7 s since the last line, 6 s since the last step: a decision runs long
    assert lines[-1] == "episode 1/1: step 3/10, score 20, 2 decisions, 6.0 s/decision; deciding for 6 s"
    clock.now = 13.0
    progress.on_step(_view(4, 20.5, 102))  # 100 more decisions: due at once
    assert lines[-1] == "episode 1/1: step 4/10, score 20.5, 102 decisions, 0.1 s/decision"


def test_the_terminal_spinner_counts_the_seconds_of_the_decision_under_way():
    clock = FakeClock()
    spinner = DecisionSpinner(clock)
    spinner.stepped(41)
    clock.now = 2.5
    console = Console(record=True, width=80, force_terminal=False)
    console.print(spinner)
    assert "step 42: deciding... 2.5 s" in console.export_text()
    spinner.done = True
    console.print(spinner)
    assert console.export_text().strip() == ""


def test_the_heartbeat_speaks_only_when_the_command_is_silent():
    clock, lines = FakeClock(), []
    beat = Heartbeat(30.0, lines.append, clock)
    clock.now = 10.0
    beat.say("      2,048/10,000 steps  ...")
    clock.now = 39.0
    beat.tick()
    assert lines == ["      2,048/10,000 steps  ..."]
    clock.now = 41.0
    beat.tick()
    assert lines[-1] == "still working, 41 s in; 31 s since:       2,048/10,000 steps  ..."
    clock.now = 50.0
    beat.tick()
    assert len(lines) == 2
