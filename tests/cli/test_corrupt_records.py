"""A run folder's records with a corrupt tail (a torn line, bytes that are not UTF-8) are read,
not fatal: the good lines are used and the skipped ones are reported in one warning per file. A
killed attempt's partial trace is not listed as an episode by the replay."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.eval.records import EvalRecord, read_records
from proagent.jsonl import read_jsonl
from proagent.runner.run_folder import RunFolder
from proagent.web.replay_data import load_run

BAD_BYTES = b'{"episode": 9, "note": "caf\xff\xfe"}'  # a line of JSON whose bytes are not UTF-8


@pytest.fixture(autouse=True)
def _no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)


def record(seat: int, episode: int, score: float, attempt: str = "a1") -> EvalRecord:
    return EvalRecord(
        episode=episode, seed=episode, layout="cramped_room", partner="greedy", seat=seat, score=score,
        soups=int(score // 20), steps=40, wall_time_s=1.0, shaped_return=[0.0, 0.0], agent="proagent",
        agent_kind="proagent", attempt=attempt,
    )  # fmt: skip


def warnings_about(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and name in r.getMessage()]


def test_reader_returns_the_good_lines_and_reports_each_skip(tmp_path, caplog):
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(b'{"episode": 0}\n' + BAD_BYTES + b'\n{"episode": 1}\n[1, 2]\n{"episode": 2, "sco')
    with caplog.at_level(logging.WARNING):
        read = read_jsonl(path)
    assert read.records == [{"episode": 0}, {"episode": 1}]
    assert [(s.line, s.reason) for s in read.skipped] == [(2, "invalid UTF-8"), (4, "a JSON list, not an object"), (5, "torn JSON")]
    (message,) = warnings_about(caplog, "episodes.jsonl")
    assert "skipped 3 unreadable lines" in message and "line 2: invalid UTF-8" in message and "line 5: torn JSON" in message
    assert RunFolder(tmp_path).read_jsonl("episodes.jsonl") == read.records  # the run folder's reader is this one


def eval_run_with_a_bad_line(folder: Path) -> Path:
    """An eval run folder (records only) whose episodes.jsonl has a non-UTF-8 line and a torn tail."""
    folder.mkdir()
    good = [record(seat, i, 100.0 + 20 * i + seat).model_dump_json().encode() for seat in (0, 1) for i in range(2)]
    torn = record(0, 2, 999.0).model_dump_json().encode()[:40]
    (folder / "episodes.jsonl").write_bytes(b"\n".join([*good[:2], BAD_BYTES, *good[2:], torn]))
    return folder


def test_report_and_resume_reading_survive_a_bad_byte(tmp_path, capsys, caplog):
    run = eval_run_with_a_bad_line(tmp_path / "20260101-000000-eval")
    with caplog.at_level(logging.WARNING):
        records = read_records(run / "episodes.jsonl")  # what `proagent eval --resume` reads
    assert [(r.seat, r.episode) for r in records] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    (message,) = warnings_about(caplog, "episodes.jsonl")
    assert "line 3: invalid UTF-8" in message and "line 6: torn JSON" in message

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(["report", str(run)]) == 0
    assert len(warnings_about(caplog, "episodes.jsonl")) == 1
    assert "4 episode(s)" in capsys.readouterr().err
    table = (run / "table.md").read_text(encoding="utf-8")
    assert "999" not in table and "cramped_room" in table


def trace_line(key: str, attempt: str, step: int) -> dict:
    return {"key": key, "attempt": attempt, "episode": int(key.rsplit("|", 1)[1]), "step": step, "seat": int(key.split("|")[3][1])}


def test_replay_lists_only_finished_episodes(tmp_path):
    """Attempt "k1" was killed in the middle of p0 episode 0; attempt "b2" resumed and finished
    both episodes: the replay lists two episodes, each as b2 played it."""
    run = tmp_path / "eval"
    run.mkdir()
    first, second = "proagent|greedy|cramped_room|p0|0", "proagent|greedy|cramped_room|p1|0"
    killed = [trace_line(first, "k1", t) for t in range(3)]
    resumed = [trace_line(key, "b2", t) for t in range(5) for key in (first, second)]
    (run / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in killed + resumed))
    (run / "episodes.jsonl").write_text(record(0, 0, 40.0, "b2").model_dump_json() + "\n" + record(1, 0, 60.0, "b2").model_dump_json() + "\n")
    trace = load_run(run)
    assert [(e.key, len(e.records)) for e in trace.episodes] == [(f"{first}#b2#0", 5), (f"{second}#b2#0", 5)]
    assert trace.unfinished == 1


def test_replay_of_a_killed_play_run_leaves_out_the_cut_episode(tmp_path):
    """A play run (no key, no attempt) killed during episode 2: episodes 0 and 1 are listed. Without
    episodes.jsonl (killed during episode 0) what there is stays listed."""
    run = tmp_path / "play"
    run.mkdir()
    lines = [{"episode": e, "step": t} for e in range(3) for t in range(4 if e < 2 else 2)]
    (run / "trace.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"episode": 2, "st')
    assert len(load_run(run).episodes) == 3
    (run / "episodes.jsonl").write_text("".join(json.dumps({"episode": e, "score": 0}) + "\n" for e in range(2)))
    assert [e.label for e in load_run(run).episodes] == ["episode 1", "episode 2"]
