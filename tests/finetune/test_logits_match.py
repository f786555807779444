"""Proof that the JAX llama forward is the function llama.cpp computes.

Two comparisons on the same llama.cpp-made tokens:
* against a float32 copy of the shipped GGUF with a float32 KV cache, llama.cpp does float32
  arithmetic throughout, so the two must agree to float32 noise: |diff| <= 1e-3 on logits whose
  spread is ~8 (measured: 1e-4). This is where a wrong rotary kind, head grouping or norm would show.
* against the shipped Q4_1 model as the product runs it, llama.cpp rounds every activation entering a
  quantised matmul to 8 bits (Q8_1 blocks of 32) and keeps keys/values in float16, while training
  uses the dequantised weights in float32. That rounding moves logits by a few percent of their
  spread (measured: mean |diff| 0.17 on a spread of 7.7, max 1.4, top-1 agreement >= 95 %), so the
  tolerance is stated relative to the spread, and a negative control shows it still rejects a
  real modelling error (the Q/K rows in the Hugging Face order, i.e. the converter's permutation
  forgotten).
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest
from finetune_helpers import FLOAT32_MAX_ABS, jax_logits, quantised_gap, within_quantised_tolerance

from proagent.finetune.llama_cpp_runtime import llama_cpp_logits, load_llama


@pytest.mark.slow  # writes and loads a 540 MB float32 copy of the model
def test_float32_weights_give_llama_cpps_logits_to_float32_noise(float32_gguf: Path, weights, params, chat_tokens):
    assert 20 <= len(chat_tokens) <= 64
    llm = load_llama(float32_gguf, n_ctx=128, float32_kv_cache=True)
    ref = llama_cpp_logits(llm, chat_tokens)
    ours = jax_logits(params, weights, chat_tokens)
    assert ref.shape == ours.shape == (len(chat_tokens), weights.hparams.n_vocab)
    assert ref.std() > 1.0  # real logits, not an empty buffer
    assert np.abs(ours - ref).max() <= FLOAT32_MAX_ABS
    assert np.array_equal(ours.argmax(-1), ref.argmax(-1))


def test_the_shipped_quantised_model_gives_our_logits_within_its_rounding(product_logits, weights, params, chat_tokens):
    ref = product_logits
    ours = jax_logits(params, weights, chat_tokens)
    assert within_quantised_tolerance(ours, ref), quantised_gap(ours, ref)


def _hf_order(w: jax.Array, n_head: int) -> jax.Array:
    """Undo the GGUF converter's Q/K row permutation (``(n_in, n_out)`` layout, stacked over layers)."""
    layers, n_in, n_out = w.shape
    return w.reshape(layers, n_in, n_head, n_out // n_head // 2, 2).swapaxes(3, 4).reshape(layers, n_in, n_out)


def test_the_quantised_tolerance_still_rejects_a_forgotten_qk_permutation(product_logits, weights, params, chat_tokens):
    hp = weights.hparams
    wrong = {**params, "layers": {**params["layers"]}}
    wrong["layers"]["q"] = _hf_order(params["layers"]["q"], hp.n_head)
    wrong["layers"]["k"] = _hf_order(params["layers"]["k"], hp.n_head_kv)
    assert not within_quantised_tolerance(jax_logits(wrong, weights, chat_tokens), product_logits)
