"""EmbeddedModel: really loads the bundled SmolLM2-135M GGUF and decodes grammar-constrained JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from proagent.llm import EmbeddedModel, LLMConfigError, Message, StructuredOutput
from proagent.llm.embedded import find_bundled_gguf

llama_cpp = pytest.importorskip(
    "llama_cpp",
    reason="llama-cpp-python is not installed (see proagent.llm.embedded.INSTALL_HINT); embedded model not tested",
)

PLANS = ["fetch_onion", "fetch_dish", "cook_soup", "deliver_soup", "wait"]
SCHEMA = StructuredOutput(
    name="decision",
    json_schema={
        "type": "object",
        "properties": {
            "analysis": {"type": "string", "maxLength": 60},
            "plan": {"type": "string", "enum": PLANS},
        },
        "required": ["analysis", "plan"],
        "additionalProperties": False,
    },
)
SYSTEM = (
    "You control a chef in the game Overcooked. A soup needs 3 onions in the pot, then it cooks, "
    "then it is put in a dish and delivered. Answer with a JSON object: a short analysis and a plan."
)
STATES = [
    "The pot has 0 onions. You hold nothing.",
    "The pot has 3 onions and the soup is cooked. You hold nothing.",
    "You hold a soup in a dish.",
]


@pytest.fixture(scope="module")
def model() -> Iterator[EmbeddedModel]:
    try:
        find_bundled_gguf()
    except LLMConfigError as exc:
        pytest.skip(str(exc))
    yield EmbeddedModel()


def _ask(model: EmbeddedModel, state: str) -> str:
    messages = [Message(role="system", content=SYSTEM), Message(role="user", content=state)]
    completion = asyncio.run(model.generate(messages, structured=SCHEMA, max_tokens=96))
    assert completion.prompt_tokens > 20 and 0 < completion.completion_tokens <= 96
    assert completion.cost_usd is None and not completion.cached and completion.latency_s > 0
    return completion.text


def test_constrained_answers_parse_and_respect_schema(model: EmbeddedModel) -> None:
    for state in STATES:
        answer = json.loads(_ask(model, state))
        assert set(answer) == {"analysis", "plan"}
        assert answer["plan"] in PLANS
        assert isinstance(answer["analysis"], str) and len(answer["analysis"]) <= 60


def test_deterministic_and_prefix_reused(model: EmbeddedModel) -> None:
    first = _ask(model, STATES[0])
    _ask(model, STATES[1])  # shares the system-prompt prefix with the next call
    assert _ask(model, STATES[0]) == first
    assert model.llama.model_params.use_extra_bufts is False  # AMX/repack buffers disabled at load


def test_free_text_without_schema(model: EmbeddedModel) -> None:
    completion = asyncio.run(model.generate([Message(role="user", content="Say hello.")], max_tokens=8))
    assert completion.text.strip() and completion.completion_tokens <= 8
    assert completion.model.startswith("embedded/")


def test_grammar_handles_enum_and_max_length() -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(json.dumps(SCHEMA.json_schema))
    assert all(f'\\"{plan}\\"' in gbnf for plan in PLANS)
    assert "{0,60}" in gbnf or gbnf.count("char") >= 60  # bounded repetition of string chars
