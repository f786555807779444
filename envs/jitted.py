"""The jitted and batched entry points every environment offers, from its pure ``reset``/``step``.

Traced once per process for all equal envs (``program_key``), so a rebuilt env reuses the compiled
functions of an equal one; the batched ones vmap over a leading env axis (lockstep: all envs step
together, each handles its own ``done``).

An env's per-run numbers (its horizon) reach the compiled steps as an input, ``run_params``, not
as constants baked into the program (gymnax's env params, passed per call): two envs that differ
only in them compile to the same program, which JAX's persistent compilation cache then compiles
once (it keys on the program). ``step`` (the same step, those numbers as constants) stays what
programs that trace a step into their own (training rollouts) call.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cached_property, partial
from typing import Any, NamedTuple

import jax
import numpy as np
from pydantic import BaseModel


class RunParams(NamedTuple):
    """The per-run numbers a world's compiled step reads as an input rather than as constants."""

    horizon: Any  # () int32: an episode is done when its step count reaches it

    @classmethod
    def of(cls, horizon: int) -> RunParams:
        return cls(np.int32(horizon))


def value_key(*parts: object) -> str:
    """The whole content of ``parts`` (dataclasses, pydantic models, NumPy arrays, plain values) as
    one canonical text: equal texts mean equal values. A part it cannot spell out in full (a JAX
    array, an arbitrary object) is a TypeError, never a partial text."""
    return json.dumps(parts, default=_spelled_out, sort_keys=True, separators=(",", ":"), allow_nan=True)


def _spelled_out(obj: object) -> object:
    if isinstance(obj, BaseModel):
        return [type(obj).__qualname__, obj.model_dump(mode="json")]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [type(obj).__qualname__, {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}]
    if isinstance(obj, np.ndarray):
        return ["ndarray", obj.dtype.str, list(obj.shape), obj.tolist()]
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"{type(obj).__name__} has no value key")


class JittedEntryPoints:
    """Mixin: ``jit_reset``, ``jit_step``, ``reset_batch`` (keys (N, 2) -> N states) and
    ``step_batch`` (keys, states, actions (N, agents) -> a batched Transition).

    An env whose step reads per-run numbers overrides ``run_params`` (a pytree of NumPy scalars)
    and ``step_with`` (the step under given params), and defines ``step`` as ``step_with`` under
    its own ``run_params``; an env without any keeps both defaults.

    Two envs built from the same values (``program_key``) are equal and hash alike, so a function
    jitted with the env as a static argument (these entry points, the runners' batched step, an RL
    partner's policy) is traced once per process for both: a table's grids, a resumed run's second
    pass and a test suite's many runs each build their env anew, and tracing a world's step costs
    seconds (MA-Crafter's most) that JAX's persistent cache does not save (it caches the compiled
    program, not the trace)."""

    reset: Any
    step: Any

    def program_key(self) -> str | None:
        """Everything this env's programs are built from (`value_key`), or None: this instance is
        equal only to itself (the default, and the answer for an env built from arrays)."""
        return None

    @cached_property
    def _program_identity(self) -> str | None:
        try:
            return self.program_key()
        except TypeError:  # a part with no value key: equal to itself only
            return None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return False
        mine = self._program_identity
        return mine is not None and mine == other._program_identity  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        mine = self._program_identity
        return id(self) if mine is None else hash(mine)

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
        return partial(_reset, self)

    @cached_property
    def jit_step(self):
        return partial(_step, self, self._device_params)

    @cached_property
    def reset_batch(self):
        return partial(_reset_batch, self)

    @cached_property
    def step_batch(self):
        return partial(_step_batch, self, self._device_params)

    @cached_property
    def _device_params(self) -> Any:
        """``run_params`` placed on the device once (not copied there at every call)."""
        return jax.device_put(self.run_params)


# The entry points are jitted once per process with the env as a static argument (not once per env
# instance): equal envs (`JittedEntryPoints.program_key`) share one trace, so every run a process
# builds anew (the runs of an eval or a table, a web session, a test suite's plays) traces a world's
# reset and step once; an env without a key is equal only to itself and is traced for itself alone.
@partial(jax.jit, static_argnums=0)
def _reset(env: JittedEntryPoints, key: Any) -> Any:
    return env.reset(key)


@partial(jax.jit, static_argnums=0)
def _step(env: JittedEntryPoints, params: Any, key: Any, state: Any, actions: Any) -> Any:
    return env.step_with(params, key, state, actions)


@partial(jax.jit, static_argnums=0)
def _reset_batch(env: JittedEntryPoints, keys: Any) -> Any:
    return jax.vmap(env.reset)(keys)


@partial(jax.jit, static_argnums=0)
def _step_batch(env: JittedEntryPoints, params: Any, keys: Any, states: Any, actions: Any) -> Any:
    return jax.vmap(env.step_with, in_axes=(None, 0, 0, 0))(params, keys, states, actions)


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
