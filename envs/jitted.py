"""The jitted and batched entry points every environment offers, from its pure ``reset``/``step``.

Compiled once per env instance (cached), so reusing an env reuses its compiled functions; the
batched ones vmap over a leading env axis (lockstep: all envs step together, each handles its own
``done``).

An env's per-run numbers (its horizon) reach the compiled steps as an input, ``run_params``, not
as constants baked into the program (gymnax's env params, passed per call): two envs that differ
only in them compile to the same program, which JAX's persistent compilation cache then compiles
once (it keys on the program). ``step`` (the same step, those numbers as constants) stays what
programs that trace a step into their own (training rollouts) call.
"""

from __future__ import annotations

from functools import cached_property, partial
from typing import Any, NamedTuple

import jax
import numpy as np


class RunParams(NamedTuple):
    """The per-run numbers a world's compiled step reads as an input rather than as constants."""

    horizon: Any  # () int32: an episode is done when its step count reaches it

    @classmethod
    def of(cls, horizon: int) -> RunParams:
        return cls(np.int32(horizon))


class JittedEntryPoints:
    """Mixin: ``jit_reset``, ``jit_step``, ``reset_batch`` (keys (N, 2) -> N states) and
    ``step_batch`` (keys, states, actions (N, agents) -> a batched Transition).

    An env whose step reads per-run numbers overrides ``run_params`` (a pytree of NumPy scalars)
    and ``step_with`` (the step under given params), and defines ``step`` as ``step_with`` under
    its own ``run_params``; an env without any keeps both defaults."""

    reset: Any
    step: Any

    @property
    def run_params(self) -> Any:
        """The per-run numbers ``step_with`` reads (none by default)."""
        return ()

    def step_with(self, params: Any, key: Any, state: Any, actions: Any) -> Any:
        """``step`` under ``params`` (by default there are none to read)."""
        del params
        return self.step(key, state, actions)

    @cached_property
    def jit_reset(self):
        return jax.jit(self.reset)

    @cached_property
    def jit_step(self):
        return partial(jax.jit(self.step_with), self._device_params)

    @cached_property
    def reset_batch(self):
        return jax.jit(jax.vmap(self.reset))

    @cached_property
    def step_batch(self):
        return partial(jax.jit(jax.vmap(self.step_with, in_axes=(None, 0, 0, 0))), self._device_params)

    @cached_property
    def _device_params(self) -> Any:
        """``run_params`` placed on the device once (not copied there at every call)."""
        return jax.device_put(self.run_params)


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
