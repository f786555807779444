"""Proof that an adapter written here is the adapter llama.cpp applies: base + exported LoRA in
llama.cpp gives the JAX model's logits with the same deltas.

The deltas are random and large enough to move the logits far beyond the comparison's tolerance
(a no-op, mis-scaled, transposed or misnamed adapter fails: the deltas move the logits ~2.5x the
quantised tolerance, ~10,000x the float32 one), on every projection kind. Tolerances
and their reasons are those of test_logits_match: float32 noise against the float32 copy, the
activation rounding against the shipped Q4_1 model.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest
from finetune_helpers import FLOAT32_MAX_ABS, jax_logits, quantised_gap, within_quantised_tolerance

from proagent.finetune.gguf_adapter import read_lora_gguf, write_lora_gguf
from proagent.finetune.llama_cpp_runtime import llama_cpp_logits, load_llama
from proagent.finetune.lora import LoraConfig, init_lora

CONFIG = LoraConfig(rank=4, alpha=8.0, targets=("q", "k", "v", "o", "gate", "up", "down"), seed=3)


@pytest.fixture(scope="module")
def random_lora(params):
    """Non-trivial deltas: ``B`` random instead of zero (a trained adapter's shape, not its start)."""
    lora = init_lora(CONFIG, params)
    keys = jax.random.split(jax.random.PRNGKey(11), len(lora))
    return {
        name: {"a": ab["a"], "b": 0.08 * jax.random.normal(key, ab["b"].shape)}
        for (name, ab), key in zip(lora.items(), keys, strict=True)
    }


@pytest.fixture(scope="module")
def adapter_file(random_lora, tmp_path_factory) -> Path:
    return write_lora_gguf(tmp_path_factory.mktemp("lora") / "adapter.gguf", random_lora, CONFIG.alpha)


def test_the_adapter_reads_back_as_written(adapter_file, random_lora):
    alpha, back = read_lora_gguf(adapter_file)
    assert alpha == CONFIG.alpha
    assert set(back) == set(random_lora)
    for name, ab in random_lora.items():
        np.testing.assert_array_equal(np.asarray(back[name]["a"]), np.asarray(ab["a"]))
        np.testing.assert_array_equal(np.asarray(back[name]["b"]), np.asarray(ab["b"]))


@pytest.mark.slow  # writes and loads a 540 MB float32 copy of the model
def test_float32_base_plus_adapter_in_llama_cpp_is_our_adapted_model(
    float32_gguf, adapter_file, weights, params, random_lora, chat_tokens
):
    ref = llama_cpp_logits(
        load_llama(float32_gguf, adapter_path=adapter_file, n_ctx=128, float32_kv_cache=True), chat_tokens
    )
    base = jax_logits(params, weights, chat_tokens)
    ours = jax_logits(params, weights, chat_tokens, random_lora, CONFIG.scale)
    assert np.abs(ours - base).mean() > 100 * FLOAT32_MAX_ABS  # the adapter matters
    assert np.abs(ours - ref).max() <= FLOAT32_MAX_ABS


def test_shipped_base_plus_adapter_in_llama_cpp_is_our_adapted_model(
    gguf_path, adapter_file, weights, params, random_lora, chat_tokens, product_logits
):
    adapted = llama_cpp_logits(load_llama(gguf_path, adapter_path=adapter_file, n_ctx=128), chat_tokens)
    ours = jax_logits(params, weights, chat_tokens, random_lora, CONFIG.scale)
    assert within_quantised_tolerance(ours, adapted), quantised_gap(ours, adapted)
    # A no-op adapter fails here: the deltas move the logits by mean |diff| / spread ~0.13; the tolerance is 0.05.
    assert not within_quantised_tolerance(ours, product_logits), quantised_gap(ours, product_logits)
    assert not within_quantised_tolerance(product_logits, adapted), quantised_gap(product_logits, adapted)
