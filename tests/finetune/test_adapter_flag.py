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


def test_a_file_that_is_not_a_lora_adapter_is_one_line_before_any_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """llama.cpp crashes the process on such a file at the first answer; the header is read first."""
    from proagent.llm.embedded import find_bundled_gguf

    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"GGUF but not really")
    for adapter, message in [(junk, "not a GGUF file"), (find_bundled_gguf(), "general.type is 'model', not 'adapter'")]:
        argv = ["play", "--layout", "cramped_room", "--adapter", str(adapter), "--runs-dir", str(tmp_path / "runs")]
        assert main([*argv, "--live", "off"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert message in err[-1] and not (tmp_path / "runs").exists()


def test_the_model_record_names_the_adapter_and_its_sha256(tmp_path: Path) -> None:
    adapter = tmp_path / "a.gguf"
    adapter.write_bytes(b"not really a gguf, only its bytes are hashed here")
    record = describe_with_adapter("embedded", adapter)
    assert record.adapter == str(adapter) and record.adapter_sha256 == hashlib.sha256(adapter.read_bytes()).hexdigest()
    assert describe_with_adapter("embedded", None).adapter_sha256 is None


def test_play_flags_read_none_as_the_raw_model_and_nothing_as_the_shipped_adapter(tmp_path: Path) -> None:
    from proagent.adapter_choice import SHIPPED_ADAPTER
    from proagent.builder import LLMFlags
    from proagent.cli.agent_options import adapter_file

    assert adapter_file("none") == "none" and adapter_file("None ") == "none" and adapter_file("a.gguf") == Path("a.gguf")
    assert LLMFlags().adapter_file == SHIPPED_ADAPTER and LLMFlags(adapter="none").adapter_file is None
    own = tmp_path / "own.gguf"
    assert LLMFlags(adapter=own).adapter_file == own
    # the shipped adapter was taught on the bundled model's weights: no other model gets it by default
    assert LLMFlags(llm=f"embedded:{own}").adapter_file is None and LLMFlags(llm="openai/x").adapter_file is None


def test_eval_reads_none_as_the_raw_model_and_writes_the_default_out() -> None:
    from proagent.adapter_choice import SHIPPED_ADAPTER
    from proagent.eval.config import AgentSpec

    assert AgentSpec(adapter="none").adapter is None and AgentSpec(adapter="x.gguf").adapter == Path("x.gguf")
    assert AgentSpec().adapter == SHIPPED_ADAPTER and AgentSpec(llm="openai/x").adapter is None
    assert AgentSpec(kind="greedy").adapter is None  # a partner has no model
    # config.json holds the adapter that played: a run made with the raw model resumes raw
    assert AgentSpec.model_validate(AgentSpec(adapter="none").model_dump()).adapter is None
    assert AgentSpec.model_validate(AgentSpec().model_dump()).adapter == SHIPPED_ADAPTER


def test_the_shipped_adapter_was_taught_on_the_bundled_model() -> None:
    """Its manifest (what `proagent finetune` wrote) names the bundled GGUF's sha256 and the adapter's own."""
    from proagent.adapter_choice import SHIPPED_ADAPTER
    from proagent.files import file_sha256
    from proagent.finetune.train import MANIFEST_FILE, FinetuneManifest
    from proagent.llm.embedded import find_bundled_gguf

    manifest = FinetuneManifest.model_validate_json((SHIPPED_ADAPTER.parent / MANIFEST_FILE).read_text())
    assert manifest.base_sha256 == file_sha256(find_bundled_gguf())
    assert manifest.adapter_sha256 == file_sha256(SHIPPED_ADAPTER)


def test_captions_name_the_adapter_a_run_played_with() -> None:
    from proagent.eval.model_names import models_caption, models_short, play_llm_seats

    record = {"adapter": "/x/adapters/taught/adapter.gguf", "adapter_sha256": "ab" * 32}
    seats = play_llm_seats({"llm": "embedded", "agent": {"prompt": "compact"}, "model": record})
    assert "with LoRA adapter `taught/adapter.gguf, sha256 abababababab`" in models_caption(seats)
    assert "+ LoRA adapter" in models_short(seats)
    raw = play_llm_seats({"llm": "embedded", "agent": {"prompt": "compact"}, "model": {"adapter": None}})
    assert "with no adapter (the raw model, `--adapter none`)" in models_caption(raw)
    assert "embedded model (raw)" in models_short(raw)
    hosted = play_llm_seats({"llm": "openai/x", "agent": {"prompt": "proagent"}, "model": {"adapter": None}})
    assert "adapter" not in models_caption(hosted) and "raw" not in models_short(hosted)


def test_the_notice_before_play_names_the_embedded_model_that_plays() -> None:
    """`play` and `human` say which embedded model is about to play: the shipped adapter is called
    taught, not capable; the raw model is called weak; another adapter is named by its file."""
    from proagent.adapter_choice import SHIPPED_ADAPTER
    from proagent.cli.agent_options import embedded_notice

    shipped, raw = embedded_notice(SHIPPED_ADAPTER), embedded_notice(None)
    assert "shipped adapter" in shipped and "scripted planners" in shipped and "--adapter none" in shipped
    assert "no adapter (the raw model" in raw and "plays weakly" in raw and "shipped" not in raw
    other = embedded_notice(Path("~/elsewhere/mine/adapter.gguf"))
    assert "mine/adapter.gguf" in other and "elsewhere" not in other and "shipped" not in other
