"""The replay payload and the self-contained export, from real traces (no browser)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.web.replay_data import ReplayError, episode_payload, load_run
from proagent.web.replay_page import export_html


def _trace(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "trace.jsonl").read_text().splitlines()]


def test_payload_has_every_frame_with_planner_rejections_and_final_state(llm_run):
    payload = episode_payload(load_run(llm_run))
    frames = payload["frames"]
    assert len(frames) == 21 and frames[-1]["final"] and frames[-1]["step"] == 20
    assert (
        payload["terrain"][0].startswith("XX") and payload["seat"] == 0 and payload["names"] == ["proagent", "greedy"]
    )
    first = frames[0]["decision"]
    assert first["attempts"][0]["plan"] == "deliver_soup()" and first["attempts"][0]["failures"], (
        "the scripted illegal plan is rejected"
    )
    assert first["attempts"][0]["explanation"] and "messages" not in json.dumps(payload), "prompts stay in the trace"
    assert all(f["analysis"] for f in frames), "the analysis is carried forward between decisions"
    assert all(f["partner_skill"] for f in frames[:-1] if f["step"] > 0), "the greedy partner's skill is shown"
    assert [f["kitchen"]["step"] for f in frames] == list(range(21))


def test_structured_kitchen_matches_the_ascii_state_of_old_traces(llm_run, tmp_path):
    old = tmp_path / "old-run"
    old.mkdir()
    lines = []
    for record in _trace(llm_run):
        lines.append(
            json.dumps(
                {k: v for k, v in record.items() if k not in ("kitchen", "terrain", "final", "seat", "partner_skill")}
            )
        )
    (old / "trace.jsonl").write_text("\n".join(lines) + "\n")
    new, legacy = episode_payload(load_run(llm_run)), episode_payload(load_run(old))
    assert legacy["terrain"] == new["terrain"] and len(legacy["frames"]) == len(new["frames"]) - 1
    for a, b in zip(new["frames"], legacy["frames"]):
        assert b["kitchen"]["approximate"]
        assert a["kitchen"]["players"] == b["kitchen"]["players"]
        assert [len(p["ingredients"]) for p in a["kitchen"]["pots"]] == [
            len(p["ingredients"]) for p in b["kitchen"]["pots"]
        ]


def test_interleaved_eval_trace_is_split_by_episode_key(llm_run, tmp_path):
    records = _trace(llm_run)
    mixed = []
    for a, b in zip(records, records):
        mixed.append({"key": "proagent|greedy|cramped_room|p0|0", "attempt": "x", **a})
        mixed.append({"key": "proagent|greedy|cramped_room|p1|0", "attempt": "x", **b, "seat": 1})
    run = tmp_path / "eval"
    run.mkdir()
    (run / "trace.jsonl").write_text("\n".join(json.dumps(r) for r in mixed) + "\n{torn")
    trace = load_run(run)
    assert len(trace.episodes) == 2
    second = episode_payload(trace, 1)
    assert second["seat"] == 1 and second["names"] == ["greedy", "proagent"] and len(second["frames"]) == 21


def test_bad_inputs_are_clear_errors(tmp_path, llm_run):
    with pytest.raises(ReplayError, match="no run folder"):
        load_run(tmp_path / "missing")
    with pytest.raises(ReplayError, match="trace = true"):
        load_run(tmp_path)
    with pytest.raises(ReplayError, match="no episode at position 3"):
        episode_payload(load_run(llm_run), 3)


def test_export_is_self_contained(llm_run, tmp_path):
    out = export_html(load_run(llm_run), tmp_path / "replay.html")
    page = out.read_text()
    assert "/static/" not in page and "<script src" not in page and "stylesheet" not in page
    assert "window.REPLAY_DATA" in page and "const Kitchen" in page
    data = re.search(r"window\.REPLAY_DATA = (.*?);</script>", page, re.DOTALL).group(1)
    assert len(json.loads(data)["frames"]) == 21


def test_replay_cli_export_and_errors(llm_run, tmp_path, capsys):
    out = tmp_path / "x.html"
    assert main(["replay", str(llm_run), "--export", str(out)]) == 0 and out.stat().st_size > 10_000
    assert main(["replay", str(tmp_path / "nope"), "--export", str(out)]) == 2
    assert main(["replay", str(llm_run), "--episode", "5", "--no-browser"]) == 2
    assert "not in this run" in capsys.readouterr().err


def looped_run(llm_run: Path, folder: Path) -> Path:
    """``llm_run`` with an undo loop caught at its step-3 decision (and a malformed entry beside it)."""
    import shutil

    shutil.copytree(llm_run, folder)
    lines = _trace(llm_run)
    at = next(r for r in lines if r.get("decision") and r["step"] >= 3)
    loop = {"skill": "pickup(onion)", "since_step": 1, "undone_by": ["place_obj_on_counter()"], "blocked": True}
    at["decision"]["loops"] = [loop, {"skill": 3, "since_step": "x"}]
    (folder / "trace.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return folder


def test_each_caught_loop_is_on_its_frame_with_what_undid_it(llm_run, tmp_path):
    payload = episode_payload(load_run(looped_run(llm_run, tmp_path / "looped")))
    caught = [(f["step"], loop) for f in payload["frames"] if f["decision"] for loop in f["decision"]["loops"]]
    assert len(caught) == 1  # the malformed entry is left out
    step, loop = caught[0]
    assert step >= 3 and loop == {"skill": "pickup(onion)", "since_step": 1, "undone_by": ["place_obj_on_counter()"], "blocked": True}


def teamed_run(llm_run: Path, folder: Path) -> Path:
    """``llm_run`` as a V2 kitchen with a view radius of 2 and a ProAgent teammate in seat 1 that
    decided at step 2, with a message before step 2 (MAEIL's cognition)."""
    import shutil

    shutil.copytree(llm_run, folder)
    lines = _trace(llm_run)
    lines[0]["view_radius"] = 2
    lines[0]["terrain"] = [row[:-1] + "L" if i == 0 else row for i, row in enumerate(lines[0]["terrain"])]
    lines[2]["team_decisions"] = {"1": {"step": 2, "skill": "pickup(onion)", "analysis": "the pot needs onions",
                                        "intention": "deliver_soup()", "attempts": [], "loops": []}}  # fmt: skip
    lines[2]["cognition"] = [{"kind": "message", "type": "say", "from": 1, "to": [0], "text": "I take the onions"}]
    (folder / "trace.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    return folder


def test_teammates_reasoning_and_the_view_window_reach_the_payload(llm_run, tmp_path):
    payload = episode_payload(load_run(teamed_run(llm_run, tmp_path / "teamed")))
    assert payload["view_radius"] == 2
    frames = payload["frames"]
    assert frames[1]["team"] == {} and frames[2]["team_decisions"]["1"]["skill"] == "pickup(onion)"
    assert all(f["team"]["1"]["analysis"] == "the pot needs onions" for f in frames[2:])
