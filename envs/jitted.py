"""The jitted and batched entry points every environment offers, from its pure ``reset``/``step``.

Compiled once per env instance (cached), so reusing an env reuses its compiled functions; the
batched ones vmap over a leading env axis (lockstep: all envs step together, each handles its own
``done``)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import jax


class JittedEntryPoints:
    """Mixin: ``jit_reset``, ``jit_step``, ``reset_batch`` (keys (N, 2) -> N states) and
    ``step_batch`` (keys, states, actions (N, agents) -> a batched Transition)."""

    reset: Any
    step: Any

    @cached_property
    def jit_reset(self):
        return jax.jit(self.reset)

    @cached_property
    def jit_step(self):
        return jax.jit(self.step)

    @cached_property
    def reset_batch(self):
        return jax.jit(jax.vmap(self.reset))

    @cached_property
    def step_batch(self):
        return jax.jit(jax.vmap(self.step))
