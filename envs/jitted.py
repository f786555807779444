"""The jitted and batched entry points every environment offers, from its pure ``reset``/``step``.

Compiled once per env instance (cached), so reusing an env reuses its compiled functions; the
batched ones vmap over a leading env axis (lockstep: all envs step together, each handles its own
``done``)."""

from __future__ import annotations

from functools import cached_property
from typing import Any, NamedTuple

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


class Transition(NamedTuple):
    """One step's outcome, the shape every env returns: ``reward`` is the team's score delta (one
    value), ``shaped_reward`` one value per seat (never part of the score), ``done`` the horizon."""

    state: Any
    reward: Any
    shaped_reward: Any
    done: Any


def hold_when_done(done: Any, before: Any, after: Any) -> Any:
    """``before`` where the episode had already ended, else ``after``: envs never auto-reset, so a
    finished episode stays finished inside a batch (jit-friendly, leaf by leaf)."""
    return jax.tree.map(lambda old, new: jax.numpy.where(done, old, new), before, after)
