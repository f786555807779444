"""Process-wide JAX settings that must be in place before the CPU backend starts; importing this
module applies them (``envs/__init__.py`` imports it first).

CPU async dispatch is turned off. With it on (JAX's default since 0.4.31), a jitted program holding
while loops (every rollout here is a ``lax.scan``) sometimes never finished on a 2-core machine: the
main thread waited in ``block_until_ready`` forever with the CPU idle. It hung two CI runs of the
slow training tests and 2 of 49 stress runs of a tiny population update under load, at the first
call; JAX issue #25861 and netket's CI report the same hang and the same cure. On a few cores,
running inline also saves the dispatch threads. GPU backends are unaffected.

The setting is read when the CPU client is created, and every JAX computation of this project comes
after an ``import envs``; a program that ran JAX code before importing ``envs`` keeps the default.
"""

from __future__ import annotations

import jax

ASYNC_CPU_DISPATCH = False

jax.config.update("jax_cpu_enable_async_dispatch", ASYNC_CPU_DISPATCH)
