"""`proagent eval` without a terminal writes a progress line every N LLM calls or T seconds and one
at the end, with the numbers of the run (episodes, steps, mean score with n, calls)."""

from __future__ import annotations

import re

import pytest
from eval_helpers import lines

from proagent.cli import main
from proagent.eval.progress import ProgressLines
from proagent.eval.runner import Snapshot
from proagent.numbers import format_score

LINE = re.compile(
    r"^progress: (\d+)/(\d+) episodes, ([\d,]+)/([\d,]+) steps, (?:mean score (\S+) \(n=(\d+)\)|no episode finished), "
    r"(\d+) LLM calls, (?:[\d.]+ s/call|no call yet), \$[\d.]+$"
)


def test_eval_without_a_terminal_writes_progress_lines_with_the_runs_numbers(tmp_path, capsys):
    argv = ["eval", "--agents", "proagent", "--partners", "greedy", "--layouts", "cramped_room", "--seats", "0"]
    argv += ["--episodes", "2", "--horizon", "12", "--llm", "scripted", "--no-cache"]
    argv += ["--progress-every", "1", "--progress-seconds", "600", "--runs-dir", str(tmp_path)]
    assert main(argv) == 0
    found = [m.groups() for line in capsys.readouterr().err.splitlines() if (m := LINE.match(line))]
    (run,) = tmp_path.iterdir()
    records = lines(run / "episodes.jsonl")
    done, total, steps, steps_total, score, n, calls = found[-1]
    assert (done, total, steps, steps_total, n) == ("2", "2", "24", "24", "2")
    assert score == format_score(sum(r["score"] for r in records) / 2)
    assert int(calls) == sum(r["llm_calls"] for r in records) > 0
    counts = [int(g[6]) for g in found]
    assert counts == sorted(counts)


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def _snap(calls: int) -> Snapshot:
    return Snapshot(episodes_done=1, episodes_total=4, steps_done=500, steps_total=1600, llm_calls=calls, tokens=0,
                    spent_usd=0.0, failures=0)  # fmt: skip


@pytest.mark.parametrize(("calls", "seconds", "due"), [(4, 9.0, False), (5, 1.0, True), (0, 10.0, True)])
def test_a_line_is_due_every_n_calls_or_t_seconds(calls, seconds, due):
    clock = Clock()
    progress = ProgressLines(every_calls=5, every_s=10.0, clock=clock)
    clock.now = seconds
    assert progress.due(_snap(calls)) is due


def test_the_line_reads_the_snapshot_and_the_finished_scores():
    clock = Clock()
    progress = ProgressLines(every_calls=5, every_s=10.0, clock=clock)
    progress.scores += [10.0, 15.0]
    clock.now = 20.0
    line = progress.line(_snap(8))
    assert line == "progress: 1/4 episodes, 500/1,600 steps, mean score 12.5 (n=2), 8 LLM calls, 2.5 s/call, $0.0000"
    assert not progress.due(_snap(12))  # counted from the last line: 4 calls, 0 s
