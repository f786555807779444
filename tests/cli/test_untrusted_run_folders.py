"""Run folders are shared between labs, so what `replay`, `report` and `analyze` read back is
untrusted. Crafted lines (a wrong type in every class of field, huge numbers, NaN and infinity,
nested junk, brackets deeper than the parser goes) are skipped with one warning that names the file
and the lines; the good lines are still read; nothing ends in a traceback and no wrong type reaches
a page or a table. A config.json whose fields have the wrong type is one clear line, exit 2."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.eval.records import strict_record
from proagent.run_lines import episode_line, trace_line
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer

HORIZON = 10
DEEP = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError on it


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> dict[str, Path]:
    """A finished play run and a traced eval run (Overcooked, loopback model), two episodes each."""
    root = tmp_path_factory.mktemp("good-runs")
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as server:
        common = [*loopback_args(server.url), "--runs-dir", str(root), "--horizon", str(HORIZON)]
        argv = ["play", "--layout", "cramped_room", "--partner", "greedy", "--episodes", "2", "--live", "off", "--no-gif"]
        assert main([*argv, *common, "--name", "play"]) == 0
        evaluate = ["eval", "--layouts", "cramped_room", "--partners", "greedy", "--seats", "0", "--episodes", "2"]
        assert main([*evaluate, "--trace", *common, "--progress", "off", "--name", "eval"]) == 0
    return {kind: next(root.glob(f"*-{kind}")) for kind in ("play", "eval")}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _bad_trace_lines(line: dict) -> list[dict]:
    """Copies of a good trace line, each with one field of the wrong type or out of bounds."""
    decision = line.get("decision") or {"attempts": []}
    return [
        {**line, "step": "3"},  # a number as text
        {**line, "step": -1},
        {**line, "episode": 10**30},  # beyond any episode, and beyond a float's exact integers
        {**line, "seat": 10**9},
        {**line, "score": float("nan")},
        {**line, "reward": float("inf")},
        {**line, "score": True},  # a boolean is not a number
        {**line, "actions": "up,down"},
        {**line, "events": [1, 2]},
        {**line, "events": [{"agent": "<img src=x>", "kind": "deliver"}]},
        {**line, "decision": [decision]},
        {**line, "decision": {**decision, "attempts": [7]}},
        {**line, "decision": {**decision, "llm_calls": "many"}},
        {**line, "belief": "correct"},
        {**line, "constraints": [{"delta_z": "abc", "counts": {"spatial": "x"}}]},
        {**line, "cognition": [{"kind": "stage", "wall_ms": "late"}]},
        {**line, "stages": {"0": ["R"]}},
        {**line, "skill": "x" * 10_000},
        {**line, "junk": json.loads("[" * 40 + "]" * 40)},  # nested deeper than any record
        {**line, "junk": list(range(30_000))},
    ]


def _bad_records(record: dict) -> list[dict]:
    """Copies of a good episode record, each with one field of the wrong type or out of bounds."""
    return [
        {**record, "seat": 10**9},
        {**record, "seat": "0"},
        {**record, "score": float("nan")},
        {**record, "score": 1e400},  # infinity once parsed
        {**record, "steps": "40"},
        {**record, "steps": -40},
        {**record, "episode": 1.5},
        {**record, "int_total": -5},
        {**record, "intention_hits": [1]},
        {**record, "team": "proagent"},
        {**record, "agent_stats": [{"llm_calls": "12"}]},
        {**record, "domain_metrics": {"soups": {"a": [[[["deep"]]]] * 5}}, "junk": json.loads("[" * 40 + "]" * 40)},
        {**record, "layout": 3},
    ]


def test_every_crafted_trace_line_is_refused(good):
    line = next(r for r in _lines(good["play"] / "trace.jsonl") if r.get("decision"))
    assert trace_line(line) is line
    for bad in _bad_trace_lines(line):
        with pytest.raises(ValueError):
            trace_line(bad)


def test_every_crafted_record_is_refused(good):
    (record, *_) = _lines(good["eval"] / "episodes.jsonl")
    assert strict_record(record).score == record["score"] and episode_line(record) is record
    for bad in _bad_records(record):
        with pytest.raises(ValueError):
            strict_record(bad)
    assert all(_refused(episode_line, bad) for bad in _bad_records(record)[:9])


def _refused(parse, data: dict) -> bool:
    try:
        parse(data)
    except ValueError:
        return True
    return False


def _crafted(run: Path, tmp_path: Path) -> tuple[Path, int, int]:
    """A copy of ``run`` with the crafted lines appended to its trace and records (and a line of
    brackets deeper than the parser goes in each): (folder, bad trace lines, bad records)."""
    folder = Path(shutil.copytree(run, tmp_path / run.name))
    trace, records = _lines(folder / "trace.jsonl"), _lines(folder / "episodes.jsonl")
    bad_trace = _bad_trace_lines(next(r for r in trace if r.get("decision")))
    bad_records = _bad_records(records[0])
    with open(folder / "trace.jsonl", "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in bad_trace) + DEEP + "\n")
    with open(folder / "episodes.jsonl", "a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in bad_records) + DEEP + "\n")
    return folder, len(bad_trace) + 1, len(bad_records) + 1


def _skip_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "skipped" in r.getMessage()]


@pytest.mark.parametrize("kind", ["play", "eval"])
def test_the_readers_skip_crafted_lines_with_one_warning_and_read_the_rest(good, kind, tmp_path, caplog, capsys):
    folder, bad_trace, bad_records = _crafted(good[kind], tmp_path)
    good_trace = len(_lines(good[kind] / "trace.jsonl"))
    good_records = len(_lines(good[kind] / "episodes.jsonl"))
    caplog.set_level(logging.WARNING)
    out = tmp_path / "replay.html"
    assert main(["replay", str(folder), "--export", str(out)]) == 0
    assert main(["replay", str(folder), "--list"]) == 0
    assert len([row for row in capsys.readouterr().out.splitlines() if row.strip().startswith(("1 ", "2 "))]) == 2
    warnings = _skip_warnings(caplog)
    trace_warning = f"{folder / 'trace.jsonl'}: skipped {bad_trace} unreadable lines (line {good_trace + 1}: not a valid record (step: Input should be"
    assert any(w.startswith(trace_warning) for w in warnings), warnings
    # the replay reads only some fields of a record (a bad team or agent_stats is not its to refuse)
    assert any(w.startswith(f"{folder / 'episodes.jsonl'}: skipped ") and f"(line {good_records + 1}: not a valid record (seat:" in w for w in warnings)
    caplog.clear()
    assert main(["report", str(folder), "--quiet"]) == 0
    assert f"{good_records} episode(s)" in capsys.readouterr().err
    records_warning = f"{folder / 'episodes.jsonl'}: skipped {bad_records} unreadable lines (line {good_records + 1}: not a valid record (seat"
    assert any(w.startswith(records_warning) for w in _skip_warnings(caplog)), _skip_warnings(caplog)
    assert main(["analyze", str(folder), "--no-write"]) == 0
    assert f"{good_records} of {good_records} episodes analyzed from the trace" in capsys.readouterr().out
    assert all(w.count("\n") == 0 for w in _skip_warnings(caplog)), "one line per file"


@pytest.mark.parametrize(
    ("change", "field"),
    [({"seat": "1"}, "seat"), ({"horizon": [400]}, "horizon"), ({"agent": "proagent"}, "agent"), ({"partner": {"x": 1}}, "partner")],
)
def test_a_config_of_the_wrong_types_is_one_clear_error(good, tmp_path, capsys, change, field):
    folder = Path(shutil.copytree(good["play"], tmp_path / "run"))
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, **change}), encoding="utf-8")
    assert main(["replay", str(folder), "--export", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"config.json: {field}" in err and "Traceback" not in err


def test_an_eval_manifest_of_the_wrong_types_is_one_clear_error(good, tmp_path, capsys):
    folder = Path(shutil.copytree(good["eval"], tmp_path / "run"))
    manifest = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    manifest["config"]["episodes"] = "2"
    (folder / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["report", str(folder), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not an evaluation config" in err


def test_analyze_imports_no_code_a_run_folder_names(good, tmp_path, capsys, monkeypatch):
    import sys

    folder = Path(shutil.copytree(good["play"], tmp_path / "run"))
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, "domain": "tests.support.never_imported:WORLD"}), encoding="utf-8")
    monkeypatch.delitem(sys.modules, "tests.support.never_imported", raising=False)
    assert main(["analyze", str(folder), "--no-write"]) == 2
    err = capsys.readouterr().err
    assert "not a registered world" in err and "pass --domain tests.support.never_imported:WORLD" in err
    assert "tests.support.never_imported" not in sys.modules
