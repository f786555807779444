"""`--adapter PATH` reaches the embedded model only, is refused in one line otherwise or when the
file is missing, and a run records the adapter with its sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.llm.scripted import describe_with_adapter


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--llm", "openai/test", "--api-base", "http://127.0.0.1:9"], "applies to the embedded model"),
        ([], "no such file"),
    ],
)
def test_a_bad_adapter_is_one_line_before_any_run_folder(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = ["play", "--layout", "cramped_room", "--adapter", str(tmp_path / "missing.gguf"), *flags]
    assert main([*argv, "--runs-dir", str(tmp_path / "runs"), "--live", "off"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and not (tmp_path / "runs").exists()


def test_the_model_record_names_the_adapter_and_its_sha256(tmp_path: Path) -> None:
    adapter = tmp_path / "a.gguf"
    adapter.write_bytes(b"not really a gguf, only its bytes are hashed here")
    record = describe_with_adapter("embedded", adapter)
    assert record.adapter == str(adapter) and record.adapter_sha256 == hashlib.sha256(adapter.read_bytes()).hexdigest()
    assert describe_with_adapter("embedded", None).adapter_sha256 is None
