"""What decides the bits of a float result computed by XLA on this CPU, as one short key.

XLA compiles for the host CPU it finds (LLVM's name for it, from vendor, family and model, and the
instruction-set extensions it has) and splits work over the host's cores; jax and jaxlib decide the
kernels (the cores counted are those this process may use: a test process of ``pytest -n N`` has its
own share). Two machines that agree on all of these produce the same bits; two that differ in any may
round float32 sums differently (seen: AMD Zen 5 with AVX-512 against an earlier EPYC, and an Intel
Xeon against both). A recorded hash of float results is therefore keyed on this key: a test checks
it bit for bit where the key was recorded and with a stated tolerance elsewhere, and the exact
check that holds everywhere compares two programs in one process.
"""

from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path

import jax
import jaxlib

from proagent.llm.embedded import usable_cores

# Feature flags of /proc/cpuinfo that name instruction-set extensions LLVM can target (others, such
# as bug or power-management flags, cannot change generated code).
_ISA_PREFIXES = ("sse", "ssse", "avx", "fma", "f16c", "amx", "bmi", "adx", "vnni", "vpclmul", "vaes", "gfni", "popcnt", "movbe", "lzcnt", "abm", "sha")


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        name, _, value = line.partition(":")
        fields[name.strip()] = value.strip()
    return fields


def bit_factors() -> dict:
    """Everything the key is made of, readable (a recorded entry keeps it beside the key)."""
    info = _cpuinfo()
    flags = sorted(f for f in info.get("flags", "").split() if f.startswith(_ISA_PREFIXES))
    return {
        "machine": platform.machine(),
        "vendor": info.get("vendor_id", ""),
        "family": info.get("cpu family", ""),
        "model": info.get("model", ""),
        "isa": flags,
        "cores": usable_cores(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
    }


def bits_key() -> str:
    """A 16-hex-digit digest of :func:`bit_factors`."""
    return hashlib.sha256(json.dumps(bit_factors(), sort_keys=True).encode()).hexdigest()[:16]
