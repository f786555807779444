"""Belief probes: a world may let the agent be asked what it believes about hidden facts.

A probe asks the seat, in one extra model call, for a value per item (Yōkai: a colour per card, or
"unknown"). The world says what to ask (`ProbeQuestion`, built from the seat's *believed* state, so
the question itself leaks nothing) and, separately, what is true (from the engine's full state).
The agent core compares the two outside the prompt: the truth never reaches a model.

Items are split into those the seat has seen (it should know them: a memory test) and those it
never saw (anything above chance is inference from teammates' signals: a theory-of-mind test),
the split the YLE paper's linear probes report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from proagent.world.types import DomainEnv, State

UNKNOWN = "unknown"  # the answer a seat may always give; never counted as correct


@dataclass(frozen=True, slots=True)
class ProbeQuestion:
    """What to ask one seat now: ``turn`` (probes are asked once per turn of the seat), the
    ``items`` to answer for, the ``values`` an answer may take (``unknown`` is always allowed),
    and the items the seat has seen (whose values it knows or remembers)."""

    turn: int
    items: tuple[str, ...]
    values: tuple[str, ...]
    seen: frozenset[str]


@dataclass(frozen=True)
class BeliefProbes:
    """A world's belief probes.

    ``question`` reads the env's settings and the seat's believed state (its perceiver's view) and
    returns None when no probe is due (not the seat's turn); ``truth`` reads the full state, for scoring only;
    ``template`` names the Jinja2 file under the world's ``prompts/<world>/probes/`` that asks it.
    """

    question: Callable[[DomainEnv, State, int], ProbeQuestion | None]
    truth: Callable[[State], Mapping[str, str]]


__all__ = ["UNKNOWN", "BeliefProbes", "ProbeQuestion"]
