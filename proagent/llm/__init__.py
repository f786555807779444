"""The LLM layer of proagent: one tiny async `Model` interface and its backends.

* `make_model` builds a model from a spec (default: the bundled embedded model).
* `LiteLLMModel` talks to hosted APIs and OpenAI-compatible servers.
* `EmbeddedModel` runs SmolLM2-135M in-process with llama.cpp (no key, no network).
* `ScriptedPlannerModel` (``--llm scripted``) plays a world's scripted planner: code, not a
  language model, answering from the typed grounding; its records say so (`describe_model`).
* `CachedModel` replays answers from disk; `MeteredModel`/`UsageMeter` count usage.
* The tests' queued-answer double and loopback server live with the tests (tests/support).
* Every answer's text is cleaned where its `Completion` is made (`sanitize_text`);
  provider failures are classified in `proagent.llm.faults`.

Heavy dependencies (litellm, llama_cpp) are imported only when first used.
"""

from proagent.llm.accounting import MeteredModel, UsageMeter, UsageSummary
from proagent.llm.cache import CachedModel, cache_key, canonical_request
from proagent.llm.embedded import EmbeddedModel, find_bundled_gguf
from proagent.llm.factory import EMBEDDED_SPEC, make_model
from proagent.llm.litellm_backend import LiteLLMModel
from proagent.llm.redaction import redact, redact_url
from proagent.llm.sanitize import sanitize_text
from proagent.llm.scripted import SCRIPTED_SPEC, ModelRecord, ScriptedPlannerModel, describe_model, is_scripted
from proagent.llm.types import (
    Completion,
    Grounding,
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
    Message,
    Model,
    StructuredOutput,
)

__all__ = [
    "EMBEDDED_SPEC",
    "SCRIPTED_SPEC",
    "CachedModel",
    "Completion",
    "EmbeddedModel",
    "Grounding",
    "LLMConfigError",
    "LLMError",
    "LLMRequestError",
    "LLMResponseError",
    "LLMUnavailableError",
    "LiteLLMModel",
    "Message",
    "MeteredModel",
    "Model",
    "ModelRecord",
    "ScriptedPlannerModel",
    "StructuredOutput",
    "UsageMeter",
    "UsageSummary",
    "cache_key",
    "canonical_request",
    "describe_model",
    "find_bundled_gguf",
    "is_scripted",
    "make_model",
    "redact",
    "redact_url",
    "sanitize_text",
]
