"""Run folders: durable JSONL appends, torn last lines, secrets never written."""

from __future__ import annotations

import json
import os

import pytest

from proagent.runner import run_folder as run_folder_module
from proagent.runner.records import EpisodeRecord
from proagent.runner.run_folder import RunFolder

SECRET = "zq-Notashape-0123456789abcdef"  # matches no key pattern: only the env value can hide it


def _episode(i: int) -> EpisodeRecord:
    return EpisodeRecord(
        episode=i, seed=i, layout="cramped_room", partner="stay", seat=0, score=20.0 * i, soups=i, steps=400, wall_time_s=1.5, shaped_return=[0.0, 0.0]
    )


def test_create_makes_a_fresh_folder_per_run(tmp_path):
    a = RunFolder.create("play", root=tmp_path)
    b = RunFolder.create("play", root=tmp_path)
    assert a.path != b.path
    assert a.path.is_dir() and b.path.is_dir()
    assert a.path.name.endswith("-play")
    assert b.path.name.endswith(("-play", "-play-2"))


def test_durable_appends_are_whole_fsynced_lines(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(run_folder_module.os, "fsync", spy)
    folder = RunFolder(tmp_path / "run")
    folder.append_jsonl("episodes.jsonl", _episode(0), durable=True)
    folder.append_jsonl("episodes.jsonl", {"episode": 1, "note": "a dict"}, durable=True)
    assert len(synced) == 2
    folder.append_jsonl("trace.jsonl", {"step": 0})  # not durable: no fsync
    assert len(synced) == 2

    text = (folder.path / "episodes.jsonl").read_text()
    assert text.endswith("\n") and text.count("\n") == 2
    rows = folder.read_jsonl("episodes.jsonl")
    assert rows[0] == _episode(0).model_dump(mode="json")
    assert rows[1] == {"episode": 1, "note": "a dict"}
    assert folder.read_jsonl("missing.jsonl") == []


def test_a_torn_last_line_is_ignored(tmp_path):
    folder = RunFolder(tmp_path / "run")
    for i in range(3):
        folder.append_jsonl("episodes.jsonl", _episode(i), durable=True)
    with open(folder.path / "episodes.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(_episode(3).model_dump(mode="json"))[:57])  # killed mid-write
    rows = folder.read_jsonl("episodes.jsonl")
    assert [r["episode"] for r in rows] == [0, 1, 2]
    assert [EpisodeRecord.model_validate(r) for r in rows] == [_episode(i) for i in range(3)]


def test_write_json_redacts_a_key_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    folder = RunFolder(tmp_path / "run")
    config = {
        "llm": "openai/gpt-4o-mini",
        "echo": f"the provider said: invalid key {SECRET}",
        "nested": {"headers": [SECRET], "prefix": SECRET[:10]},
    }
    path = folder.write_json("config.json", config)
    text = path.read_text()
    assert SECRET not in text
    assert "[REDACTED]" in text
    data = json.loads(text)
    assert data["llm"] == "openai/gpt-4o-mini"
    assert data["echo"] == "the provider said: invalid key [REDACTED]"
    assert data["nested"]["headers"] == ["[REDACTED]"]
    assert not list(folder.path.glob("*.tmp"))  # the temporary file was renamed into place


def test_append_jsonl_redacts_too(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    folder = RunFolder(tmp_path / "run")
    folder.append_jsonl("trace.jsonl", {"messages": [{"role": "user", "content": f"key {SECRET}"}]}, durable=True)
    assert SECRET not in (folder.path / "trace.jsonl").read_text()


@pytest.mark.parametrize("data", [_episode(7), {"a": 1}])
def test_write_json_overwrites_atomically(tmp_path, data):
    folder = RunFolder(tmp_path / "run")
    folder.write_json("summary.json", {"old": True})
    path = folder.write_json("summary.json", data)
    expected = data.model_dump(mode="json") if isinstance(data, EpisodeRecord) else data
    assert json.loads(path.read_text()) == expected
