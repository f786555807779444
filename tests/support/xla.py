"""XLA's full optimisation for the few tests whose recorded bits were made with it.

The suite compiles with XLA's light optimisation (see the repository's conftest.py); a test that
compares parameters with a sha256 recorded from a production build compiles under the default
instead. The flag is not part of JAX's in-memory jit key, so the caches are cleared on the way in
and out: nothing compiled under one setting is run under the other (the persistent cache keys on
the compile options, so it stays correct and warm).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import jax


@contextmanager
def full_xla_optimisation() -> Iterator[None]:
    was_light = bool(jax.config.read("jax_disable_most_optimizations"))
    jax.clear_caches()
    jax.config.update("jax_disable_most_optimizations", False)
    try:
        yield
    finally:
        jax.clear_caches()
        jax.config.update("jax_disable_most_optimizations", was_light)
