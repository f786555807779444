"""Write (and read back) trained LoRA deltas as a llama.cpp LoRA adapter GGUF.

The format is what llama.cpp's ``llama_adapter_lora_init`` accepts: ``general.type = adapter``,
``general.architecture`` equal to the base model's, ``adapter.type = lora`` and
``adapter.lora.alpha``; one tensor pair per adapted base tensor, named ``<base tensor>.lora_a`` and
``<base tensor>.lora_b``. llama.cpp checks ``a.ne = [n_in, rank]`` and ``b.ne = [rank, n_out]``
(GGUF's ``ne`` is NumPy's shape reversed, so arrays ``(rank, n_in)`` and ``(n_out, rank)``), and
adds ``b·(a·x) * alpha / rank``, the rank read from ``b``. Our ``A`` ``(n_in, rank)`` and ``B``
``(rank, n_out)`` are therefore written transposed, in float32 so llama.cpp multiplies them exactly.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from proagent.finetune.llama import PROJECTIONS, LoraParams

__all__ = ["read_lora_gguf", "write_lora_gguf"]

SUFFIX_A, SUFFIX_B = ".lora_a", ".lora_b"


def write_lora_gguf(path: Path, lora: LoraParams, alpha: float, architecture: str = "llama", name: str = "") -> Path:
    """Write ``lora`` (our stacked ``a``/``b`` per target) as a llama.cpp adapter at ``path``."""
    import gguf

    writer = gguf.GGUFWriter(str(path), arch=architecture)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(alpha))
    if name:
        writer.add_name(name)
    for target, tensor in PROJECTIONS.items():
        if target not in lora:
            continue
        a, b = np.asarray(lora[target]["a"], np.float32), np.asarray(lora[target]["b"], np.float32)
        for layer in range(a.shape[0]):
            writer.add_tensor(f"blk.{layer}.{tensor}{SUFFIX_A}", np.ascontiguousarray(a[layer].T))
            writer.add_tensor(f"blk.{layer}.{tensor}{SUFFIX_B}", np.ascontiguousarray(b[layer].T))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(path)


def read_lora_gguf(path: Path) -> tuple[float, LoraParams]:
    """``(alpha, deltas)`` of an adapter written by `write_lora_gguf` (layers stacked again)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    field = reader.get_field(gguf.Keys.Adapter.LORA_ALPHA)
    if field is None:
        raise ValueError(f"{path} is not a LoRA adapter GGUF (no {gguf.Keys.Adapter.LORA_ALPHA})")
    arrays = {
        t.name: np.asarray(t.data, np.float32).reshape(tuple(int(n) for n in reversed(t.shape.tolist())))
        for t in reader.tensors
    }
    lora: LoraParams = {}
    for target, tensor in PROJECTIONS.items():
        layers = sorted(int(name.split(".")[1]) for name in arrays if name.endswith(f".{tensor}{SUFFIX_A}"))
        if not layers:
            continue
        if layers != list(range(len(layers))):
            raise ValueError(f"{path} adapts {tensor} in layers {layers}; only every layer from 0 can be read back")
        lora[target] = {
            "a": jnp.asarray(np.stack([arrays[f"blk.{i}.{tensor}{SUFFIX_A}"].T for i in layers])),
            "b": jnp.asarray(np.stack([arrays[f"blk.{i}.{tensor}{SUFFIX_B}"].T for i in layers])),
        }
    return float(field.contents()), lora
