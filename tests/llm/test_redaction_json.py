"""Redaction keeps records and cache entries valid JSON: values are redacted before serialising, so
a secret-looking model text (``password: "x"``, escaped quotes, backslashes) never breaks a line,
and a re-run replays from the cache."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from proagent.llm import CachedModel, Message
from proagent.llm.redaction import REDACTED, redact_values
from proagent.runner.run_folder import RunFolder
from tests.support.scripted import ScriptedModel

HOSTILE = [
    'password: "x"',
    'api_key = "sk-abcdefghijklmnop" and \\"quoted\\"',
    'secret:"a\\"b" \\\\ trailing backslash \\',
    'Authorization: Bearer abc.def-ghi {"password": "y"}',
    '{"api_key": "zzz", "note": "x"}',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_records_stay_json_and_lose_the_secret(text: str, tmp_path: Path) -> None:
    folder = RunFolder.create("hostile", root=tmp_path)
    folder.append_jsonl("trace.jsonl", {"analysis": text, "nested": [{"msg": text}], text: 1})
    folder.write_json("config.json", {"note": text})
    line = (folder.path / "trace.jsonl").read_text().splitlines()[0]
    record = json.loads(line)  # raises on a broken line
    assert "sk-abcdefghijklmnop" not in line and "abc.def-ghi" not in line
    assert json.loads((folder.path / "config.json").read_text())["note"] == record["analysis"]


def test_a_key_that_names_a_credential_hides_its_whole_value() -> None:
    data = {"password": "hunter2", "headers": {"x-api-key": "k123456"}, "plain": "hunter2", "n": 3}
    assert redact_values(data) == {"password": REDACTED, "headers": {"x-api-key": REDACTED}, "plain": "hunter2", "n": 3}


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cached_answer_with_secret_looking_text_replays(text: str, tmp_path: Path) -> None:
    messages = [Message(role="user", content="What next?")]
    first = asyncio.run(CachedModel(ScriptedModel([text]), tmp_path).generate(messages))
    (entry,) = tmp_path.rglob("*.json")
    json.loads(entry.read_text())  # valid JSON on disk
    replay = asyncio.run(CachedModel(ScriptedModel([]), tmp_path).generate(messages))  # would raise if called
    assert replay.cached and replay.text == json.loads(entry.read_text())["completion"]["text"]
    assert "sk-abcdefghijklmnop" not in entry.read_text() and first.text == text
