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
            "analysis": {"type": "string", "maxLength": 40},
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
    completion = asyncio.run(model.generate(messages, structured=SCHEMA, max_tokens=80))
    assert completion.prompt_tokens > 20 and 0 < completion.completion_tokens <= 80
    assert completion.cost_usd is None and not completion.cached and completion.latency_s > 0
    assert completion.finish_reason == "stop"  # the grammar closed the object before max_tokens
    return completion.text


def test_constrained_deterministic_and_prefix_reused(model: EmbeddedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    llm = model.llama
    assert llm.model_params.use_extra_bufts is False  # AMX/repack buffers disabled at load
    evaluated: list[int] = []
    real_eval = llm.eval

    def counting_eval(tokens: list[int]) -> None:
        evaluated.append(len(tokens))
        real_eval(tokens)

    monkeypatch.setattr(llm, "eval", counting_eval)

    answers = []
    for state in (STATES[0], STATES[1], STATES[0]):
        evaluated.clear()
        answers.append(_ask(model, state))
        prompt_evaluated = evaluated[0]  # first eval of a call is the prompt (suffix); then 1 token each
    for text in answers:
        answer = json.loads(text)
        assert set(answer) == {"analysis", "plan"}
        assert answer["plan"] in PLANS
        assert isinstance(answer["analysis"], str) and len(answer["analysis"]) <= 40
    assert answers[2] == answers[0]  # greedy + fixed seed: replayable
    # The third call shares the system prompt with the second: only the tail is re-evaluated.
    assert prompt_evaluated < 30, f"{prompt_evaluated} prompt tokens re-evaluated; expected KV prefix reuse"


def test_free_text_and_concurrent_calls(model: EmbeddedModel) -> None:
    """Concurrent episodes share one instance: calls are serialised by its lock, not corrupted."""

    async def two_at_once() -> list[str]:
        calls = [model.generate([Message(role="user", content="Say hello.")], max_tokens=6) for _ in range(2)]
        done = await asyncio.gather(*calls)
        assert all(c.completion_tokens <= 6 and c.model.startswith("embedded/") for c in done)
        return [c.text for c in done]

    first, second = asyncio.run(two_at_once())
    assert first.strip() and first == second


def test_grammar_handles_enum_and_max_length() -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(json.dumps(SCHEMA.json_schema))
    rules = dict(line.split(" ::= ", 1) for line in gbnf.splitlines() if " ::= " in line)
    assert rules["plan"] == " | ".join(f'"\\"{plan}\\""' for plan in PLANS)  # enum: only these strings
    assert rules["analysis"].count("char") == 40  # maxLength: at most 40 (nested optional) chars


def _fake_state(tokens: tuple[int, ...], kv_bytes: int, scores_rows: int = 4):
    import numpy as np

    return llama_cpp.LlamaState(
        input_ids=np.array(tokens, dtype=np.intc),
        scores=np.zeros((scores_rows, 1000), dtype=np.single),  # 16,000 bytes of logits copy
        n_tokens=len(tokens),
        llama_state=b"\0" * kv_bytes,
        llama_state_size=kv_bytes,
        seed=0,
    )


def test_state_cache_keeps_the_latest_state_of_each_conversation() -> None:
    from proagent.llm.embedded_cache import ConversationStateCache, entry_bytes

    system_a, system_b = tuple(range(100, 160)), (100, 101, *range(500, 558))  # share 2 template tokens
    cache = ConversationStateCache(capacity_bytes=10**6)
    cache[system_a + (1, 2)] = _fake_state(system_a + (1, 2), 1000)
    cache[system_b + (1, 2)] = _fake_state(system_b + (1, 2), 1000)
    cache[system_a + (3, 4, 5)] = _fake_state(system_a + (3, 4, 5), 1000)  # continues conversation a
    assert sorted(len(k) for k in cache.cache_state) == [62, 63]  # a's first state was superseded, b's kept
    assert cache[system_a + (9,)].n_tokens == 63 and cache[system_b + (9,)].n_tokens == 62
    # The capacity counts the logits copy too (LlamaRAMCache counts only the KV state).
    assert cache.cache_size == 2 * (1000 + 16_000) == 2 * entry_bytes(cache[system_b])
    small = ConversationStateCache(capacity_bytes=20_000)
    small[system_a] = _fake_state(system_a, 1000)
    small[system_b] = _fake_state(system_b, 1000)  # 34,000 bytes in all: the older one goes
    assert list(small.cache_state) == [system_b]


def test_state_cache_serves_alternating_conversations_with_the_same_answers(model: EmbeddedModel) -> None:
    """Two conversations that take turns (a ProAgent pair's seats): with the state cache each call
    re-evaluates only its new tail, and the answers are those of the model without the cache."""
    systems = [SYSTEM + " You are chef 0.", "You are chef 1 of two. " + SYSTEM]

    def run(m: EmbeddedModel) -> tuple[list[str], int]:
        texts, evaluated = [], 0
        for state in STATES[:2]:
            for system in systems:
                messages = [Message(role="system", content=system), Message(role="user", content=state)]
                c = asyncio.run(m.generate(messages, structured=SCHEMA, max_tokens=40))
                texts.append(c.text)
                evaluated += c.prompt_tokens - c.reused_prompt_tokens
        return texts, evaluated

    cached_texts, cached_evaluated = run(model)  # the default: state cache on
    plain_texts, plain_evaluated = run(EmbeddedModel(state_cache_mb=0))
    assert cached_texts == plain_texts
    first_round = plain_evaluated // 2  # without the cache the second round costs about what the first did
    assert cached_evaluated < plain_evaluated - first_round // 2, (cached_evaluated, plain_evaluated)
