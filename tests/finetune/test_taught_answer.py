"""Tokens and behaviour end to end: the prompt ids training uses are the ids llama.cpp's chat
completion evaluates, and an adapter trained here on one answer makes the embedded model, as the
product runs it, give that answer where the raw model does not."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from proagent.finetune.batches import Example
from proagent.finetune.llama_cpp_runtime import load_llama
from proagent.finetune.lora import LoraConfig
from proagent.finetune.train import TrainConfig, finetune
from proagent.llm.embedded import EmbeddedModel
from proagent.llm.types import Message

CHAT = [
    Message(role="system", content="You control a chef. Answer with JSON."),
    Message(role="user", content="You hold a soup in a dish. What next?"),
]
TAUGHT = '{"plan": "deliver_soup", "why": "the dish is full"}'


def test_training_prompt_ids_are_the_ids_chat_completion_evaluates(gguf_path: Path, tokenizer):
    ours = tokenizer.prompt(CHAT)
    llm = load_llama(gguf_path, n_ctx=256, logits_all=False)
    result = llm.create_chat_completion(messages=[m.model_dump() for m in CHAT], max_tokens=1, temperature=0.0)
    assert result["usage"]["prompt_tokens"] == len(ours)
    assert list(llm.input_ids[: len(ours)]) == ours
    assert ours[-3:] == tokenizer.prompt(CHAT)[-3:] and tokenizer.text(ours).endswith("assistant\n")


def _answer(model: EmbeddedModel) -> str:
    return asyncio.run(model.generate(list(CHAT), max_tokens=40, temperature=0.0)).text


@pytest.mark.slow  # trains the 30-block model for 12 steps
def test_an_adapter_trained_on_one_answer_makes_the_embedded_model_give_it(
    gguf_path: Path, tokenizer, weights, tmp_path
):
    raw = EmbeddedModel(gguf_path, n_ctx=256, state_cache_mb=0)
    assert _answer(raw) != TAUGHT
    example = Example(prompt=tuple(tokenizer.prompt(CHAT)), answer=tuple(tokenizer.answer(TAUGHT)))
    config = TrainConfig(lora=LoraConfig(rank=8, alpha=16.0, learning_rate=3e-3), steps=12, batch_size=1, log_every=4)
    manifest = finetune([example], gguf_path, tmp_path, config, weights=weights)
    assert manifest.losses[-1].loss < 0.2 * manifest.losses[0].loss
    taught = EmbeddedModel(gguf_path, n_ctx=256, state_cache_mb=0, adapter_path=tmp_path / "adapter.gguf")
    assert taught.name != raw.name and taught.adapter_sha256 == manifest.adapter_sha256
    assert _answer(taught) == TAUGHT
