"""CachedModel: stable keys, hits and misses, atomic files, exact replay."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from proagent.files import write_atomic
from proagent.llm import CachedModel, Completion, Message, StructuredOutput, cache_key, canonical_request
from tests.support.scripted import ScriptedModel

MSGS = [Message(role="system", content="You cook."), Message(role="user", content="What next?")]
SCHEMA = StructuredOutput(name="plan", json_schema={"type": "object", "properties": {"plan": {"enum": ["a", "b"]}}})


def _key(**overrides: object) -> str:
    args: dict = dict(model="m", messages=MSGS, structured=SCHEMA, max_tokens=64, temperature=0.0, seed=1)
    args.update(overrides)
    return cache_key(canonical_request(**args))  # type: ignore[arg-type]


def test_key_is_stable_and_pinned() -> None:
    assert _key() == _key()
    # Pinned: a change here silently invalidates every recorded run, so it must be deliberate.
    # Bump CACHE_FORMAT_VERSION when the key recipe changes on purpose.
    assert _key() == "ed15e20c0af11ffc42a5ecd572a2c4afbf38f42cce44ac137b4101b8f86d97f6"


def test_key_changes_with_every_input() -> None:
    base = _key()
    variants = [
        _key(model="other"),
        _key(messages=[*MSGS, Message(role="assistant", content="ok")]),
        _key(messages=[MSGS[0], Message(role="user", content="What next? ")]),
        _key(structured=None),
        _key(max_tokens=65),
        _key(temperature=0.5),
        _key(seed=None),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_key_ignores_dict_order_in_schema() -> None:
    a = StructuredOutput(name="p", json_schema={"type": "object", "required": ["x"]})
    b = StructuredOutput(name="p", json_schema={"required": ["x"], "type": "object"})
    assert _key(structured=a) == _key(structured=b)


def test_hit_and_miss(tmp_path: Path) -> None:
    inner = ScriptedModel(["first", "second"])
    model = CachedModel(inner, tmp_path)

    async def run() -> list[Completion]:
        return [
            await model.generate(MSGS, max_tokens=32),
            await model.generate(MSGS, max_tokens=32),  # hit
            await model.generate(MSGS, max_tokens=33),  # different key: miss
        ]

    fresh, hit, other = asyncio.run(run())
    assert (fresh.text, fresh.cached) == ("first", False)
    assert (hit.text, hit.cached, hit.latency_s) == ("first", True, 0.0)
    assert (hit.prompt_tokens, hit.completion_tokens) == (fresh.prompt_tokens, fresh.completion_tokens)
    assert hit.original_latency_s == fresh.latency_s
    assert other.text == "second"
    assert len(inner.calls) == 2 and (model.hits, model.misses) == (1, 2)


def test_replay_from_disk_in_a_new_process_state(tmp_path: Path) -> None:
    """A second CachedModel over the same dir replays without calling its inner model at all."""
    asyncio.run(CachedModel(ScriptedModel(["recorded answer"]), tmp_path).generate(MSGS, structured=SCHEMA, seed=3))
    replay_inner = ScriptedModel([])  # would raise LLMError if called
    replayed = asyncio.run(CachedModel(replay_inner, tmp_path).generate(MSGS, structured=SCHEMA, seed=3))
    assert replayed.text == "recorded answer" and replayed.cached
    assert replay_inner.calls == []


def test_layout_is_sharded_json_with_request(tmp_path: Path) -> None:
    model = CachedModel(ScriptedModel(["x"]), tmp_path)
    asyncio.run(model.generate(MSGS))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1
    key = files[0].stem
    assert files[0].parent.name == key[:2] and len(key) == 64
    stored = json.loads(files[0].read_text())
    assert stored["request"]["messages"][1]["content"] == "What next?"
    assert stored["completion"]["cached"] is False


def test_corrupt_entry_is_a_miss_and_is_repaired(tmp_path: Path) -> None:
    model = CachedModel(ScriptedModel(["one", "two"]), tmp_path)
    asyncio.run(model.generate(MSGS))
    (entry,) = [p for p in tmp_path.rglob("*.json")]
    entry.write_text("{not json")
    assert asyncio.run(model.generate(MSGS)).text == "two"
    assert asyncio.run(model.generate(MSGS)).text == "two"


def test_errors_are_not_cached(tmp_path: Path) -> None:
    model = CachedModel(ScriptedModel([RuntimeError("boom"), "ok"]), tmp_path)
    with pytest.raises(RuntimeError):
        asyncio.run(model.generate(MSGS))
    assert asyncio.run(model.generate(MSGS)).text == "ok"


def test_atomic_write_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "ab" / "entry.json"
    write_atomic(target, "old")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_atomic(target, "new content")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert sorted(p.name for p in target.parent.iterdir()) == ["entry.json"]  # temp file removed


def test_concurrent_identical_requests_leave_one_valid_entry(tmp_path: Path) -> None:
    model = CachedModel(ScriptedModel(respond=lambda call: "same"), tmp_path)

    async def run() -> list[Completion]:
        return list(await asyncio.gather(*(model.generate(MSGS) for _ in range(8))))

    assert {c.text for c in asyncio.run(run())} == {"same"}
    entries = list(tmp_path.rglob("*"))
    assert [p.suffix for p in entries if p.is_file()] == [".json"]
