"""Shared fixtures: the shipped GGUF read once per test process (parsing its vocabulary and
dequantising take seconds), its float32 copy, and the chat tokenizer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed; the fine-tuner's reference is not there")
pytest.importorskip("gguf", reason="the gguf package is not installed")

from proagent.finetune.chat_tokens import ChatTokenizer
from proagent.finetune.gguf_weights import LlamaWeights, open_gguf, read_llama_gguf, write_float32_gguf
from proagent.finetune.llama import params_from_weights
from proagent.finetune.llama_cpp_runtime import llama_cpp_logits, load_llama
from proagent.llm.embedded import find_bundled_gguf
from proagent.llm.types import Message

CHAT = [
    Message(role="system", content="You control a chef. Answer with JSON."),
    Message(role="user", content="The pot has 2 onions. You hold an onion. What next?"),
]


@pytest.fixture(scope="session")
def gguf_path() -> Path:
    return find_bundled_gguf()


@pytest.fixture(scope="session")
def gguf_reader(gguf_path: Path) -> Any:
    return open_gguf(gguf_path)


@pytest.fixture(scope="session")
def weights(gguf_path: Path, gguf_reader: Any) -> LlamaWeights:
    return read_llama_gguf(gguf_path, gguf_reader)


@pytest.fixture(scope="session")
def params(weights: LlamaWeights) -> dict[str, Any]:
    return params_from_weights(weights)


@pytest.fixture(scope="session")
def float32_gguf(gguf_reader: Any, weights: LlamaWeights, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_float32_gguf(gguf_reader, weights, tmp_path_factory.mktemp("f32") / "model-f32.gguf")


@pytest.fixture(scope="session")
def tokenizer(gguf_path: Path) -> ChatTokenizer:
    return ChatTokenizer(gguf_path)


@pytest.fixture(scope="session")
def chat_tokens(tokenizer: ChatTokenizer) -> list[int]:
    return tokenizer.prompt(CHAT)


@pytest.fixture(scope="session")
def product_logits(gguf_path: Path, chat_tokens: list[int]) -> np.ndarray:
    """llama.cpp's logits for ``chat_tokens`` from the shipped model, loaded as the product loads it."""
    return llama_cpp_logits(load_llama(gguf_path, n_ctx=128), chat_tokens)


@pytest.fixture(scope="session")
def two_layers(weights: LlamaWeights) -> LlamaWeights:
    """The shipped model cut to its first two blocks: where the trainer's bookkeeping or the command's
    plumbing is tested, not the numbers, two blocks run fifteen times faster than thirty."""
    kept = {k: v for k, v in weights.tensors.items() if not k.startswith("blk.") or int(k.split(".")[1]) < 2}
    return weights.model_copy(update={"hparams": weights.hparams.model_copy(update={"n_layer": 2}), "tensors": kept})


@pytest.fixture(scope="session")
def two_layer_gguf(gguf_reader: Any, two_layers: LlamaWeights, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`two_layers` as a GGUF file (float32, the shipped vocabulary and chat template)."""
    return write_float32_gguf(gguf_reader, two_layers, tmp_path_factory.mktemp("small") / "model-2-blocks.gguf")
