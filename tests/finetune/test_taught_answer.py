"""Tokens and behaviour end to end: the prompt ids training uses are the ids llama.cpp's chat
completion evaluates, and an adapter trained here on one answer makes the embedded model, as the
product runs it, give that answer where the raw model does not: as free text, and, from a
teacher's labelled lines rendered in the student's format, under the grammar of the agent's
request (what the embedded model answers at play time)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from proagent.finetune.batches import Example
from proagent.finetune.dataset import SupervisedPair, render_answers, to_examples
from proagent.finetune.llama_cpp_runtime import load_llama
from proagent.finetune.lora import LoraConfig
from proagent.finetune.train import TrainConfig, finetune
from proagent.llm.embedded import EmbeddedModel
from proagent.llm.types import Message, StructuredOutput
from tests.finetune.world_schemas import world_planner

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


def _planned(model: EmbeddedModel, structured: StructuredOutput) -> str:
    return asyncio.run(model.generate(list(CHAT), structured=structured, max_tokens=60, temperature=0.0)).text


@pytest.mark.slow  # trains the 30-block model for 12 steps
def test_a_teachers_lines_rendered_for_the_grammar_teach_the_answer_the_grammar_lets_out(
    gguf_path: Path, tokenizer, weights, tmp_path
):
    """The Overcooked scripted planner writes labelled lines; the embedded model answers the agent's
    compact request under the grammar of its schema. Rendered as that schema's JSON, the teacher's
    answer is what the adapted model says under the grammar, and not what the raw model says."""
    planner = world_planner("overcooked", "compact")
    structured = planner.structured_output(planner.book.all_skills())
    teacher = "Analysis: I hold nothing.\nIntention: wait(3)\nPlan: place_obj_on_counter()"
    pair = SupervisedPair(
        messages=tuple(CHAT), answer=teacher, structured=structured, world="overcooked/counter_circuit",
        run="run", episode=0, step=0, score=0.0, accepted=True,
    )  # fmt: skip
    (rendered,), rendering = render_answers([pair])
    taught = '{"intention": "wait(3)", "plan": "place_obj_on_counter()"}'
    assert rendered.answer == taught and rendering.formats == {"json": 1}
    raw = EmbeddedModel(gguf_path, n_ctx=256, state_cache_mb=0)
    assert _planned(raw, structured) != taught
    config = TrainConfig(lora=LoraConfig(rank=8, alpha=16.0, learning_rate=3e-3), steps=12, batch_size=1, log_every=4)
    manifest = finetune(to_examples([rendered], tokenizer, None), gguf_path, tmp_path, config, weights=weights)
    assert manifest.losses[-1].loss < 0.2 * manifest.losses[0].loss
    student = EmbeddedModel(gguf_path, n_ctx=256, state_cache_mb=0, adapter_path=tmp_path / "adapter.gguf")
    assert _planned(student, structured) == taught
