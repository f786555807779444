"""Domain-agnostic STRIPS vocabulary: predicates, operator schemas, grounded operators and traces.

The interdependence analysis (``analysis``) reads only these types, so it applies to any
multi-agent domain whose mapping produces a ``GroundedTrace`` (the paper's App. C: a mapping
module per domain, one shared analysis module). A domain is declared as data (``Domain``, loaded
from TOML): which predicates exist, which role each plays for the analysis, which operators exist
with which preconditions and effects, and which predicates are goals.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

PredicateRole = Literal["infrastructure", "holder", "location", "form", "lineage", "goal"]
ENV_AGENT = -1  # the actor of transitions no agent made (a timer running out)


def agent_name(index: int) -> str:
    """How agents appear in propositions (``holding p0 box1``): the convention every mapping uses."""
    return "env" if index == ENV_AGENT else f"p{index}"


class Proposition(NamedTuple):
    """A ground atom, e.g. ``on(box3, shelf_2_2)``."""

    predicate: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"({self.predicate} {' '.join(self.args)})" if self.args else f"({self.predicate})"


class PredicateSpec(BaseModel):
    """A predicate's argument types and its role in the analysis.

    Roles say why the predicate matters: ``holder`` (an agent has an object: the looping tests read
    it), ``location`` (where an object lies), ``form`` (the object's own nominal state, compared by
    the looping tests), ``lineage`` (an object became part of another: ``child``/``parent`` give
    the argument positions), ``goal`` (a goal fact), ``infrastructure`` (facts about fixed things,
    such as an empty shelf: they never carry an interdependence because no object is exchanged).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    args: list[str]
    role: PredicateRole
    child: int | None = None
    parent: int | None = None

    @model_validator(mode="after")
    def _lineage_positions(self) -> PredicateSpec:
        if self.role == "lineage" and (self.child is None or self.parent is None):
            raise ValueError("a lineage predicate needs child and parent argument positions")
        return self


class OperatorSchema(BaseModel):
    """A lifted STRIPS operator: parameters (``?name`` -> type) and atoms over them.

    Atoms are written ``"on ?o ?s"``. ``actor`` names the parameter bound to the acting agent:
    trigger detection asks whether an effect could satisfy a precondition of an operator some
    *other* agent performs, which it could not if the atom binds the actor.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    parameters: dict[str, str]
    actor: str = "?a"
    pre: list[str] = Field(default_factory=list)
    add: list[str] = Field(default_factory=list)
    delete: list[str] = Field(default_factory=list)
    each: dict[str, str] = Field(
        default_factory=dict,
        description="a parameter standing for each member of a set (the parts an object is made of)",
    )
    pre_each: list[str] = Field(default_factory=list)
    add_each: list[str] = Field(default_factory=list)
    delete_each: list[str] = Field(default_factory=list)
    doc: str = ""

    def types(self) -> dict[str, str]:
        return {**self.parameters, **self.each}


class Domain(BaseModel):
    """A declarative domain: types, predicates with roles, operators, goal predicates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    tracked_types: list[str] = Field(description="object types whose identities are tracked (exchanged objects)")
    predicates: dict[str, PredicateSpec]
    operators: dict[str, OperatorSchema]
    goal_predicates: list[str]

    @model_validator(mode="after")
    def _atoms_use_known_predicates(self) -> Domain:
        for name, op in self.operators.items():
            for atom in (*op.pre, *op.add, *op.delete, *op.pre_each, *op.add_each, *op.delete_each):
                pred, *args = atom.split()
                if pred not in self.predicates:
                    raise ValueError(f"operator {name}: unknown predicate {pred!r}")
                if len(args) != len(self.predicates[pred].args):
                    raise ValueError(f"operator {name}: {atom!r} has the wrong number of arguments")
        return self

    @classmethod
    def from_toml(cls, path: Path) -> Domain:
        with open(path, "rb") as fh:
            return cls.model_validate(tomllib.load(fh))

    def role(self, predicate: str) -> PredicateRole:
        return self.predicates[predicate].role


@dataclass(frozen=True, slots=True)
class GroundedOperator:
    """One agent's action at one step as a ground STRIPS operator.

    ``index`` orders operators totally: steps in order, and within a step the engine's resolution
    order (agent 0 first), which turns the simultaneous game into the paper's turn-taking plan.
    """

    index: int
    step: int
    agent: int
    name: str
    args: tuple[str, ...]
    pre: frozenset[Proposition] = frozenset()
    add: frozenset[Proposition] = frozenset()
    delete: frozenset[Proposition] = frozenset()

    @property
    def is_noop(self) -> bool:
        return not (self.pre or self.add or self.delete)

    def objects(self) -> set[str]:
        """Every object mentioned in the operator's conditions or effects."""
        return {a for p in (*self.pre, *self.add, *self.delete) for a in p.args}

    def header(self) -> str:
        who = agent_name(self.agent)
        return f"({self.name} {' '.join((who, *self.args))})" if self.args else f"({self.name} {who})"


@dataclass
class GroundedTrace:
    """A grounded episode: objects with types, the initial state, the operator sequence, the goal
    facts reached. ``objects`` maps id -> type; ``steps`` is the number of environment steps."""

    domain: str
    objects: dict[str, str]
    initial: frozenset[Proposition]
    operators: list[GroundedOperator]
    steps: int
    agents: int
    notes: list[str] = field(default_factory=list)

    def states(self) -> list[frozenset[Proposition]]:
        """The symbolic state before each operator, then the final one (len = operators + 1)."""
        state = set(self.initial)
        out = [frozenset(state)]
        for op in self.operators:
            state -= op.delete
            state |= op.add
            out.append(frozenset(state))
        return out


def atom(text: str, binding: Mapping[str, str]) -> Proposition:
    """Ground ``"on ?o ?s"`` with ``{"?o": "box1", "?s": "shelf_2_2"}``."""
    pred, *args = text.split()
    return Proposition(pred, tuple(binding.get(a, a) for a in args))


def ground(
    domain: Domain,
    name: str,
    binding: Mapping[str, str],
    *,
    index: int,
    step: int,
    agent: int,
    members: Sequence[Mapping[str, str]] = (),
) -> GroundedOperator:
    """Instantiate operator ``name``; ``members`` bind the schema's ``each`` parameters once per
    member (the parts an object is made of), instantiating ``pre_each``/``add_each``/``delete_each``."""
    schema = domain.operators[name]
    args = tuple(binding[p] for p in schema.parameters if p != schema.actor)
    pre = [atom(a, binding) for a in schema.pre]
    add = [atom(a, binding) for a in schema.add]
    delete = [atom(a, binding) for a in schema.delete]
    for member in members:
        full = {**binding, **member}
        pre += [atom(a, full) for a in schema.pre_each]
        add += [atom(a, full) for a in schema.add_each]
        delete += [atom(a, full) for a in schema.delete_each]
    return GroundedOperator(index, step, agent, name, args, frozenset(pre), frozenset(add), frozenset(delete))


def _atoms(props: Iterable[Proposition]) -> str:
    items = sorted(str(p) for p in props)
    if not items:
        return "()"
    return items[0] if len(items) == 1 else "(and " + " ".join(items) + ")"


def to_pddl_text(trace: GroundedTrace, *, include_noops: bool = False, title: str = "") -> str:
    """A PDDL-like grounded trace: objects, initial state, then one block per operator.

    Movement and waiting carry no object conditions; they are left out unless ``include_noops``
    (the operator indices still show where time passed)."""
    lines = [f";; grounded trace{': ' + title if title else ''} (domain {trace.domain}, {trace.steps} steps)"]
    lines += [f";; {note}" for note in trace.notes]
    by_type: dict[str, list[str]] = {}
    for obj, kind in trace.objects.items():
        by_type.setdefault(kind, []).append(obj)
    lines.append("(:objects " + " ".join(f"{' '.join(objs)} - {kind}" for kind, objs in sorted(by_type.items())) + ")")
    lines.append("(:init " + " ".join(sorted(str(p) for p in trace.initial)) + ")")
    for op in trace.operators:
        if op.is_noop and not include_noops:
            continue
        lines.append(f"t={op.step:<4d} {op.header()}")
        if not op.is_noop:
            lines.append(f"    :pre {_atoms(op.pre)}")
            lines.append(f"    :add {_atoms(op.add)}")
            lines.append(f"    :del {_atoms(op.delete)}")
    return "\n".join(lines) + "\n"


def unifies(pattern: str, prop: Proposition, bound: Sequence[str] = ()) -> dict[str, str] | None:
    """Match a lifted atom against a ground one; the binding, or None. ``bound`` lists variables
    that must not be bound by the match (returns None when the match binds one of them)."""
    pred, *args = pattern.split()
    if pred != prop.predicate or len(args) != len(prop.args):
        return None
    binding: dict[str, str] = {}
    for var, value in zip(args, prop.args):
        if not var.startswith("?"):
            if var != value:
                return None
            continue
        if var in bound or binding.get(var, value) != value:
            return None
        binding[var] = value
    return binding
