"""Whether a file is a LoRA adapter llama.cpp can load, checked before any run begins.

Why here and not left to llama.cpp: given a file that is not a LoRA adapter GGUF (a typo'd path to
some other file, a base model, a truncated download), llama.cpp's loader crashes the process
(a segmentation fault) at the first answer, after the run folder exists. Reading the GGUF header
with the ``gguf`` package costs milliseconds and turns that into one line before anything runs.
"""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["adapter_file_problem"]

_WANTED = {"general.type": "adapter", "adapter.type": "lora"}  # what llama_adapter_lora_init requires


def adapter_file_problem(path: Path) -> str | None:
    """Why ``path`` is not a LoRA adapter GGUF (None: it is one)."""
    import gguf

    try:
        fields = gguf.GGUFReader(str(path)).fields
    except (ValueError, OSError, IndexError, KeyError, struct.error) as exc:  # bad magic, truncated, unreadable
        return f"not a GGUF file ({type(exc).__name__})"
    for key, wanted in _WANTED.items():
        field = fields.get(key)
        found = field.contents() if field is not None else None
        if found != wanted:
            shown = "missing" if found is None else repr(str(found)[:40])
            return f"not a LoRA adapter GGUF ({key} is {shown}, not {wanted!r})"
    return None
