"""llama.cpp as the reference the fine-tuner is held to: load a GGUF (optionally with a LoRA
adapter) the way the embedded model does, and read its logits at every position.

Why here: the training forward is only worth anything if llama.cpp, which runs the model in the
product, computes the same function; the tests and the exporter's check compare against this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from proagent.llm.embedded import import_llama_cpp, one_llama_load, usable_cores, without_extra_buffer_types

__all__ = ["GGML_TYPE_F32", "llama_cpp_logits", "load_llama"]

GGML_TYPE_F32 = 0  # ggml's type id for float32 (a KV cache kept in float32 instead of the default float16)


def load_llama(
    model_path: Path,
    *,
    adapter_path: Path | None = None,
    n_ctx: int = 512,
    logits_all: bool = True,
    float32_kv_cache: bool = False,
    vocab_only: bool = False,
) -> Any:
    """A ``llama_cpp.Llama`` on the CPU, loaded with the embedded model's guard (no AMX repacking buffers)."""
    lib = import_llama_cpp()
    cores = usable_cores()
    kv = {"type_k": GGML_TYPE_F32, "type_v": GGML_TYPE_F32} if float32_kv_cache else {}
    with one_llama_load(), without_extra_buffer_types(lib):
        return lib.Llama(
            model_path=str(model_path),
            lora_path=None if adapter_path is None else str(adapter_path),
            n_ctx=n_ctx,
            n_threads=cores,
            n_threads_batch=cores,
            n_gpu_layers=0,
            logits_all=logits_all,
            vocab_only=vocab_only,
            verbose=False,
            **kv,
        )


def llama_cpp_logits(llm: Any, tokens: list[int]) -> np.ndarray:
    """llama.cpp's next-token logits ``(T, V)`` after each of ``tokens``, from a fresh context."""
    llm.reset()
    llm.eval(tokens)
    return np.array(llm.scores[: len(tokens)], dtype=np.float32)
