"""Read a llama-architecture GGUF into float32 NumPy arrays and its hyper-parameters.

Why dequantise: training needs float weights; the GGUF that ships with the embedded model is
the only copy of them we have (Q4_1 projections, a Q8_0 embedding), so the fine-tuned model
starts from exactly the weights llama.cpp runs, not from a different upstream checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from proagent.files import file_sha256

__all__ = ["LlamaHParams", "LlamaWeights", "file_sha256", "open_gguf", "read_llama_gguf", "write_float32_gguf"]

# The per-layer tensors a llama block holds in a GGUF, without the "blk.N." prefix.
LAYER_TENSORS = (
    "attn_norm.weight",
    "attn_q.weight",
    "attn_k.weight",
    "attn_v.weight",
    "attn_output.weight",
    "ffn_norm.weight",
    "ffn_gate.weight",
    "ffn_up.weight",
    "ffn_down.weight",
)


class LlamaHParams(BaseModel):
    """The numbers that fix a llama forward; read from the GGUF's metadata, never assumed."""

    model_config = ConfigDict(frozen=True)

    n_layer: int
    n_embd: int
    n_ff: int
    n_head: int
    n_head_kv: int
    n_rot: int
    rope_theta: float
    rms_eps: float
    n_vocab: int
    tied_embeddings: bool
    bos_token_id: int
    eos_token_id: int

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


class LlamaWeights(BaseModel):
    """Hyper-parameters plus every tensor, dequantised, keyed by its GGUF name (e.g. ``blk.0.attn_q.weight``).

    Arrays are in NumPy's row-major order, i.e. GGUF's ``ne`` reversed: a projection is
    ``(n_out, n_in)`` and is applied as ``x @ W.T``."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    hparams: LlamaHParams
    tensors: dict[str, np.ndarray]
    source_sha256: str


def _scalar(reader: Any, key: str) -> Any:
    field = reader.get_field(key)
    if field is None:
        raise ValueError(f"GGUF has no metadata key {key!r}")
    return field.contents()


def _hparams(reader: Any, names: set[str]) -> LlamaHParams:
    arch = str(_scalar(reader, "general.architecture"))
    if arch != "llama":
        raise ValueError(f"only llama-architecture GGUFs can be fine-tuned here, this one is {arch!r}")
    n_embd = int(_scalar(reader, "llama.embedding_length"))
    n_head = int(_scalar(reader, "llama.attention.head_count"))
    vocab = int(_scalar(reader, "llama.vocab_size"))
    return LlamaHParams(
        n_layer=int(_scalar(reader, "llama.block_count")),
        n_embd=n_embd,
        n_ff=int(_scalar(reader, "llama.feed_forward_length")),
        n_head=n_head,
        n_head_kv=int(_scalar(reader, "llama.attention.head_count_kv")),
        n_rot=int(_scalar(reader, "llama.rope.dimension_count")),
        rope_theta=float(_scalar(reader, "llama.rope.freq_base")),
        rms_eps=float(_scalar(reader, "llama.attention.layer_norm_rms_epsilon")),
        n_vocab=vocab,
        tied_embeddings="output.weight" not in names,
        bos_token_id=int(_scalar(reader, "tokenizer.ggml.bos_token_id")),
        eos_token_id=int(_scalar(reader, "tokenizer.ggml.eos_token_id")),
    )


def open_gguf(path: Path) -> Any:
    """A ``gguf.GGUFReader`` over ``path`` (parsing the vocabulary takes seconds: open once, pass it on)."""
    import gguf

    return gguf.GGUFReader(str(path))


def read_llama_gguf(path: Path, reader: Any = None) -> LlamaWeights:
    """Every tensor of a llama GGUF as float32 (gguf's reference dequantiser), with its hyper-parameters."""
    import gguf

    reader = open_gguf(path) if reader is None else reader
    tensors: dict[str, np.ndarray] = {}
    for tensor in reader.tensors:
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        shape = tuple(int(n) for n in reversed(tensor.shape.tolist()))
        tensors[tensor.name] = np.ascontiguousarray(values.reshape(shape), dtype=np.float32)
    hparams = _hparams(reader, set(tensors))
    if hparams.n_rot != hparams.head_dim:
        raise ValueError(
            f"partial rotary embeddings (n_rot={hparams.n_rot}, head_dim={hparams.head_dim}) are not supported"
        )
    missing = [
        f"blk.{i}.{name}" for i in range(hparams.n_layer) for name in LAYER_TENSORS if f"blk.{i}.{name}" not in tensors
    ]
    if missing or "token_embd.weight" not in tensors or "output_norm.weight" not in tensors:
        raise ValueError(f"GGUF lacks llama tensors: {missing[:5] or ['token_embd/output_norm']}")
    return LlamaWeights(hparams=hparams, tensors=tensors, source_sha256=file_sha256(Path(path)))


def write_float32_gguf(reader: Any, weights: LlamaWeights, out: Path) -> Path:
    """A copy of the GGUF ``reader`` reads, every tensor stored as the float32 values in ``weights``.

    Why: llama.cpp multiplies quantised weights by activations it rounds to 8 bits; given float32
    weights it multiplies in float32. Running this copy in llama.cpp therefore tests the forward
    here against llama.cpp's graph with the quantisation taken out, so a tolerance on the quantised
    model measures quantisation, not a disguised modelling error. Weights cut to their first blocks
    (``hparams.n_layer`` lowered, later blocks left out) give a smaller, faster model of the same
    vocabulary, for tests of the plumbing."""
    import gguf

    arch = str(_scalar(reader, "general.architecture"))
    writer = gguf.GGUFWriter(str(out), arch=arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in ("general.file_type", "general.architecture"):
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = weights.hparams.n_layer if field.name == f"{arch}.block_count" else field.contents()
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    writer.add_file_type(int(gguf.LlamaFileType.ALL_F32))
    for tensor in reader.tensors:
        if tensor.name in weights.tensors:  # weights cut to fewer blocks write a smaller model
            writer.add_tensor(tensor.name, weights.tensors[tensor.name])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(out)
