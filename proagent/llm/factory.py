"""`make_model`: turn a model spec from the command line or a config into a `Model`.

``None`` or ``"embedded"`` gives the bundled local model (no key, no
internet), which is what a fresh checkout runs.  ``"embedded:/path/x.gguf"``
runs another GGUF file.  Anything else is a litellm model id
(``openai/gpt-4o-mini``, ``anthropic/claude-...``, ``ollama/llama3``, or
``openai/<name>`` with ``api_base`` for a local OpenAI-compatible server).
``"scripted"`` is the world's scripted planner in process (`proagent.llm.scripted`: code that
answers from the typed state sent beside each prompt, no language model); the caller hands in the
world's planner, since this layer names no world.
``"python:package.module:attribute"`` calls that factory with ``api_base`` and
``timeout_s`` for a `Model` of the caller's own (like ``--domain
package.module:attribute`` for a world): the tests' loopback double is one.
Configuration problems are reported here, before an episode starts, with the
exact variable to set or package to install, and an ``api_base`` that is not an
http(s) URL is refused here rather than retried as a connection error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from proagent.llm.adapter_file import adapter_file_problem
from proagent.llm.cache import CachedModel
from proagent.llm.embedded import EmbeddedModel
from proagent.llm.litellm_backend import LiteLLMModel, check_api_base, credential_env_vars, import_litellm
from proagent.llm.scripted import SCRIPTED_SPEC, ScriptedPlanner, ScriptedPlannerModel
from proagent.llm.types import LLMConfigError, Model

__all__ = [
    "DEFAULT_TIMEOUT_S", "EMBEDDED_SPEC", "PYTHON_PREFIX", "SCRIPTED_SPEC", "is_api_model", "is_embedded_model",
    "make_model",
]  # fmt: skip

EMBEDDED_SPEC = "embedded"
PYTHON_PREFIX = "python:"  # python:package.module:attribute, a factory of a Model
DEFAULT_TIMEOUT_S = 60.0


_Backend = Literal["embedded", "scripted", "python", "litellm"]


def _backend(spec: str | None) -> _Backend:
    """Which backend `make_model` builds for ``spec`` (None or blank: the embedded model)."""
    spec = (spec or EMBEDDED_SPEC).strip()
    if spec == SCRIPTED_SPEC:
        return "scripted"
    if spec == EMBEDDED_SPEC or spec.startswith(EMBEDDED_SPEC + ":"):
        return "embedded"
    return "python" if spec.startswith(PYTHON_PREFIX) else "litellm"


def is_api_model(spec: str | None) -> bool:
    """Whether ``spec`` names a litellm model (an API or a server), not the embedded model, the scripted
    planner or a ``python:`` factory: only such a model has a price, and asking litellm's price table
    costs its import (seconds) in a process that may otherwise never need it."""
    return _backend(spec) == "litellm"


def is_embedded_model(spec: str | None) -> bool:
    """Whether ``spec`` (None or blank: the default) names the in-process embedded model, which answers
    one call at a time: episodes in flight only take turns on it."""
    return _backend(spec) == "embedded"


def _make_embedded(spec: str, threads: int | None = None, adapter: Path | None = None) -> EmbeddedModel:
    _, _, path = spec.partition(":")
    if path and not Path(path).is_file():
        raise LLMConfigError(f"embedded model file not found: {path}")
    if adapter is not None and not Path(adapter).is_file():
        raise LLMConfigError(
            f"--adapter {str(adapter)[:200]}: no such file (a LoRA adapter GGUF, e.g. from proagent finetune)"
        )
    if adapter is not None and (problem := adapter_file_problem(Path(adapter))):
        raise LLMConfigError(f"--adapter {str(adapter)[:200]}: {problem}; give a file `proagent finetune` wrote")
    model = EmbeddedModel(Path(path) if path else None, n_threads=threads, adapter_path=adapter)
    model.check_available()
    return model


def _make_scripted(api_base: str | None, planner: ScriptedPlanner | None) -> ScriptedPlannerModel:
    if api_base is not None:
        raise LLMConfigError("api_base applies to API models, not to the scripted planner (--llm scripted)")
    if planner is None:
        raise LLMConfigError("--llm scripted needs a world that ships a scripted planner; this one has none")
    return ScriptedPlannerModel(planner)


def _make_litellm(spec: str, api_base: str | None, timeout_s: float) -> LiteLLMModel:
    check_api_base(api_base)
    litellm = import_litellm()
    try:
        litellm.get_llm_provider(spec, api_base=api_base)
    except Exception as exc:  # litellm raises several types here
        raise LLMConfigError(
            f"unknown model {spec!r}: use a litellm id '<provider>/<model>' such as "
            f"'openai/gpt-4o-mini', or 'embedded' for the bundled local model"
        ) from exc
    if api_base is None:
        missing = credential_env_vars(litellm, spec)
        if missing:
            raise LLMConfigError(
                f"model {spec!r} needs an API key from the environment; litellm reports unset: "
                f"{', '.join(missing)}. Set it (export {missing[0]}=...), "
                f"pass api_base for a local server, or use model 'embedded' which needs no key"
            )
    return LiteLLMModel(spec, api_base=api_base, timeout_s=timeout_s)


def _make_python(target: str, api_base: str | None, timeout_s: float) -> Model:
    """The `Model` of the factory named ``package.module:attribute``, given ``api_base`` and ``timeout_s``."""
    module_name, _, attribute = target.partition(":")
    try:
        factory: Callable[..., object] = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as exc:
        problem = f"model factory {target!r}: cannot import it ({exc}); name package.module:attribute"
        raise LLMConfigError(problem) from exc
    model = factory(api_base=api_base, timeout_s=timeout_s)
    if not isinstance(model, Model):
        raise LLMConfigError(f"model factory {target!r} returned {type(model).__name__}, not a Model")
    return model


def make_model(
    spec: str | None,
    *,
    api_base: str | None = None,
    cache_dir: Path | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    planner: ScriptedPlanner | None = None,
    threads: int | None = None,
    adapter: Path | None = None,
) -> Model:
    """Build the `Model` named by ``spec``; wrap it in an on-disk `CachedModel` if ``cache_dir`` is given.
    ``threads``: the embedded model's CPU threads (None: sized to the free cores it may use).

    ``timeout_s`` bounds each request to an API model (a slow local server may need more than the
    default); the embedded model runs in-process and has no request to time out. ``planner`` is the
    world's scripted planner, which ``spec`` ``scripted`` plays; its answers are never cached
    (`ScriptedPlannerModel`).
    """
    if not timeout_s > 0:
        raise LLMConfigError(f"the request timeout must be a positive number of seconds, not {timeout_s!r}")
    spec = (spec or EMBEDDED_SPEC).strip()
    model: Model
    backend = _backend(spec)
    if threads is not None and backend != "embedded":
        raise LLMConfigError("--threads applies to the embedded model, which runs in this process")
    if adapter is not None and backend != "embedded":
        raise LLMConfigError("--adapter applies to the embedded model (a LoRA adapter GGUF for llama.cpp)")
    if backend == "scripted":
        return _make_scripted(api_base, planner)
    if backend == "embedded":
        if api_base is not None:
            raise LLMConfigError("api_base applies to API models, not to the embedded model")
        model = _make_embedded(spec, threads, adapter)
    elif backend == "python":
        model = _make_python(spec.removeprefix(PYTHON_PREFIX), api_base, timeout_s)
    else:
        model = _make_litellm(spec, api_base, timeout_s)
    if cache_dir is not None:
        model = CachedModel(model, Path(cache_dir))
    return model
