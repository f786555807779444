"""The analysis module (paper Sec. 4.3, App. C.2 Algorithm 1), domain-agnostic.

Input: a ``GroundedTrace`` and its ``Domain``. Walking the operators in order, each true
proposition remembers the operator that last added it (the paper's per-agent effect lists,
filtered against the current state). When an operator's precondition about a tracked object is
such a proposition and its achiever was another agent, the pair is an interdependence (Def. 4.1),
associated with that object. Each is then tested:

- goal-reaching (Def. 4.4): the object, or what it became part of (a part -> the whole it was
  assembled into), ends in a goal fact;
- non-looping (Def. 4.5): the giver never gets the object back in the same state, and the
  receiver never had it in that state before; with App. D.4's nuance, a loop is a *useful
  transfer* (not looping) when it is goal-reaching and the agent that got the object back used its
  free hands meanwhile for another goal-reaching object: the object's state is then tagged by the
  progress made while it was away;
- constructive (Def. 4.6): both.

Trigger actions (Def. 4.2) are operators with an effect on a tracked object that unifies with a
precondition of some operator whose actor the effect does not bind (another agent could use it),
unless the actor itself consumed that effect in the same step (an object put into a container
that the same step turns into something else).

Counts are per agent and per ordered pair of agents (who offered, who acted upon it), for any
number of agents.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from proagent.interdependence.records import (
    AgentCounts,
    Category,
    EpisodeInterdependence,
    Interdependence,
    PairCounts,
    pair_key,
)
from proagent.interdependence.strips import (
    ENV_AGENT,
    Domain,
    GroundedOperator,
    GroundedTrace,
    Proposition,
    agent_name,
    unifies,
)

OBJECT_ROLES = frozenset({"holder", "location", "form", "lineage", "goal"})
STATE_ROLES = frozenset({"form", "lineage", "goal"})  # an object's own (nominal) state, not where it is


@dataclass(frozen=True)
class Holding:
    """An agent came to hold an object at operator ``index``, in nominal ``state``."""

    index: int
    agent: str
    state: frozenset[Proposition]


@dataclass(frozen=True)
class Link:
    giver: GroundedOperator
    receiver: GroundedOperator
    proposition: Proposition
    obj: str


class Analyzer:
    """One pass over a trace builds the facts every test reads; ``run`` assembles the record."""

    def __init__(self, trace: GroundedTrace, domain: Domain, useful_transfers: bool = True) -> None:
        self.trace = trace
        self.domain = domain
        self.useful_transfers = useful_transfers
        self.tracked = {o for o, kind in trace.objects.items() if kind in domain.tracked_types}
        self.parent: dict[str, tuple[str, int]] = {}  # object -> (what it became part of, at which operator)
        self.holdings: dict[str, list[Holding]] = {}
        self.links: list[Link] = []
        self.final: frozenset[Proposition] = frozenset()
        self._deleted_by: dict[tuple[int, int], set[Proposition]] = {}
        for op in trace.operators:
            self._deleted_by.setdefault((op.step, op.agent), set()).update(op.delete)
        self._scan()

    # ---- the pass ----

    def _object_of(self, prop: Proposition) -> str | None:
        spec = self.domain.predicates.get(prop.predicate)
        if spec is None or spec.role not in OBJECT_ROLES:
            return None
        if spec.role == "lineage":
            return prop.args[spec.child] if prop.args[spec.child] in self.tracked else None
        return next((a for a in prop.args if a in self.tracked), None)

    def _state_of(self, obj: str, state: set[Proposition]) -> frozenset[Proposition]:
        return frozenset(p for p in state if obj in p.args and self.domain.role(p.predicate) in STATE_ROLES)

    def _scan(self) -> None:
        state = set(self.trace.initial)
        achiever: dict[Proposition, GroundedOperator] = {}
        for op in self.trace.operators:
            seen: set[tuple[int, str]] = set()
            for prop in sorted(op.pre):
                obj = self._object_of(prop)
                giver = achiever.get(prop) if prop in state else None
                if obj is None or giver is None or giver.agent in (op.agent, ENV_AGENT) or op.agent == ENV_AGENT:
                    continue
                if (giver.index, obj) not in seen:
                    seen.add((giver.index, obj))
                    self.links.append(Link(giver, op, prop, obj))
            state -= op.delete
            state |= op.add
            for prop in op.delete:
                achiever.pop(prop, None)
            for prop in op.add:
                achiever[prop] = op
                self._note(op, prop, state)
        self.final = frozenset(state)

    def _note(self, op: GroundedOperator, prop: Proposition, state: set[Proposition]) -> None:
        spec = self.domain.predicates[prop.predicate]
        if spec.role == "lineage":
            self.parent[prop.args[spec.child]] = (prop.args[spec.parent], op.index)
        elif spec.role == "holder":
            obj = self._object_of(prop)
            holder = next((a for a in prop.args if a != obj), None)
            if obj is not None and holder is not None:
                self.holdings.setdefault(obj, []).append(Holding(op.index, holder, self._state_of(obj, state)))

    # ---- object facts ----

    def lineage(self, obj: str) -> list[tuple[str, int]]:
        """The object, then what it became part of, with the operator index it happened at."""
        chain, seen = [(obj, -1)], {obj}
        while chain[-1][0] in self.parent and self.parent[chain[-1][0]][0] not in seen:
            chain.append(self.parent[chain[-1][0]])
            seen.add(chain[-1][0])
        return chain

    def goal_reaching(self, obj: str) -> bool:
        final_obj = self.lineage(obj)[-1][0]
        return any(p.predicate in self.domain.goal_predicates and final_obj in p.args for p in self.final)

    def trajectory(self, obj: str, start: int) -> list[GroundedOperator]:
        """Def. 4.3: operators from ``start`` on that mention the object (or, once merged, its successor)."""
        chain = self.lineage(obj)
        out = []
        for op in self.trace.operators[start:]:
            mentioned = op.objects()
            if any(o in mentioned and op.index >= since for o, since in chain):
                out.append(op)
        return out

    def contributed_elsewhere(self, agent: int, obj: str, start: int, end: int) -> bool:
        """Did ``agent`` advance another goal-reaching object between operators start and end?"""
        mine = {o for o, _ in self.lineage(obj)}
        for op in self.trace.operators[start + 1 : end]:
            if op.agent != agent:
                continue
            others = {o for p in op.add for o in p.args if o in self.tracked} - mine
            if any(self.goal_reaching(o) for o in others):
                return True
        return False

    # ---- the looping tests (Def. 4.5, App. D.4) ----

    def giver_loop(self, link: Link) -> tuple[bool, bool]:
        """(looping, exempted as a useful transfer) for condition 1: the giver gets it back unchanged."""
        giver = agent_name(link.giver.agent)
        given = self._state_at(link.obj, link.giver.index)
        for h in self.holdings.get(link.obj, []):
            if h.index > link.giver.index and h.agent == giver and h.state == given:
                useful = self.contributed_elsewhere(link.giver.agent, link.obj, link.giver.index, h.index)
                return True, useful
        return False, False

    def receiver_loop(self, link: Link) -> tuple[bool, bool]:
        """Condition 2: the receiver had held the object in the state it now receives it in."""
        receiver = agent_name(link.receiver.agent)
        received = self._state_at(link.obj, link.receiver.index + 1)
        earlier = [h for h in self.holdings.get(link.obj, []) if h.index < link.receiver.index and h.agent == receiver]
        matching = [h for h in earlier if h.state == received]
        if not matching:
            return False, False
        released = self._released_after(link.obj, matching[-1].index)
        useful = self.contributed_elsewhere(link.receiver.agent, link.obj, released, link.receiver.index)
        return True, useful

    def _state_at(self, obj: str, index: int) -> frozenset[Proposition]:
        """The object's nominal state just before operator ``index`` (the last holding before it;
        objects never change state between an agent's hands and the next holder)."""
        held = [h for h in self.holdings.get(obj, []) if h.index < index]
        return held[-1].state if held else frozenset()

    def _released_after(self, obj: str, index: int) -> int:
        """The operator that took the object out of the hand it entered at ``index``."""
        for op in self.trace.operators[index + 1 :]:
            if any(p.predicate in self._holder_predicates and obj in p.args for p in op.delete):
                return op.index
        return index

    @property
    def _holder_predicates(self) -> set[str]:
        return {name for name, spec in self.domain.predicates.items() if spec.role == "holder"}

    # ---- triggers (Def. 4.2) ----

    def is_trigger(self, op: GroundedOperator) -> bool:
        if op.agent == ENV_AGENT:
            return False
        consumed = self._deleted_by.get((op.step, op.agent), set())
        for prop in op.add:
            if self._object_of(prop) is None or prop in consumed:
                continue
            if self._usable_by_another(prop):
                return True
        return False

    def _usable_by_another(self, prop: Proposition) -> bool:
        for schema in self.domain.operators.values():
            types = schema.types()
            for pattern in (*schema.pre, *schema.pre_each):
                binding = unifies(pattern, prop, bound=(schema.actor,))
                if binding is not None and all(self._type_ok(v, types.get(k, "")) for k, v in binding.items()):
                    return True
        return False

    def _type_ok(self, value: str, declared: str) -> bool:
        actual = self.trace.objects.get(value)
        if declared == "object":
            return actual in self.domain.tracked_types
        return actual == declared


def _category(goal: bool, looping: bool) -> Category:
    if goal:
        return "looping" if looping else "constructive"
    return "looping_irrelevant" if looping else "irrelevant"


def classify(analyzer: Analyzer, link: Link) -> Interdependence:
    goal = analyzer.goal_reaching(link.obj)
    g_loop, g_useful = analyzer.giver_loop(link)
    r_loop, r_useful = analyzer.receiver_loop(link)
    useful = (
        analyzer.useful_transfers
        and goal
        and (g_loop or r_loop)
        and (g_useful or not g_loop)
        and (r_useful or not r_loop)
    )
    looping = (g_loop or r_loop) and not useful
    return Interdependence(
        giver=link.giver.agent,
        receiver=link.receiver.agent,
        object=link.obj,
        object_type=analyzer.trace.objects.get(link.obj, "?"),
        proposition=str(link.proposition),
        giver_step=link.giver.step,
        receiver_step=link.receiver.step,
        giver_action=link.giver.header(),
        receiver_action=link.receiver.header(),
        receiver_operator=link.receiver.name,
        goal_reaching=goal,
        giver_loop=g_loop,
        receiver_loop=r_loop,
        useful_transfer=useful,
        constructive=goal and not looping,
        category=_category(goal, looping),
        trajectory=[f"t={op.step} {op.header()}" for op in analyzer.trajectory(link.obj, link.giver.index)],
    )


def _agent_counts(
    trace: GroundedTrace, links: list[Link], pairs: list[Interdependence], triggers: list[GroundedOperator]
) -> list[AgentCounts]:
    """Per agent: triggers offered and taken up, triggers of others acted upon, pairs given/received."""
    trigger_ids = {op.index for op in triggers}
    accepted_triggers = {link.giver.index for link in links if link.giver.index in trigger_ids}
    agents = []
    for i in range(trace.agents):
        mine = [op for op in triggers if op.agent == i]
        agents.append(
            AgentCounts(
                agent=i,
                initiated=len(mine),
                initiated_accepted=sum(1 for op in mine if op.index in accepted_triggers),
                accepted=len(
                    {link.giver.index for link in links if link.receiver.agent == i and link.giver.index in trigger_ids}
                ),
                given=sum(1 for p in pairs if p.giver == i),
                received=sum(1 for p in pairs if p.receiver == i),
                constructive_given=sum(1 for p in pairs if p.giver == i and p.constructive),
                constructive_received=sum(1 for p in pairs if p.receiver == i and p.constructive),
            )
        )
    return agents


def _pair_counts(
    trace: GroundedTrace, links: list[Link], pairs: list[Interdependence], triggers: list[GroundedOperator]
) -> dict[str, PairCounts]:
    """Per ordered pair (giver, receiver), every pair of distinct agents, in index order."""
    trigger_ids = {op.index for op in triggers}
    out = {}
    for i in range(trace.agents):
        for j in range(trace.agents):
            if i == j:
                continue
            mine = [p for p in pairs if (p.giver, p.receiver) == (i, j)]
            taken = {
                link.giver.index
                for link in links
                if (link.giver.agent, link.receiver.agent) == (i, j) and link.giver.index in trigger_ids
            }
            out[pair_key(i, j)] = PairCounts(
                giver=i,
                receiver=j,
                total=len(mine),
                constructive=sum(p.constructive for p in mine),
                accepted=len(taken),
            )
    return out


def analyze(trace: GroundedTrace, domain: Domain, useful_transfers: bool = True) -> EpisodeInterdependence:
    """All interdependence metrics of one grounded episode."""
    analyzer = Analyzer(trace, domain, useful_transfers)
    pairs = [classify(analyzer, link) for link in analyzer.links]
    triggers = [op for op in trace.operators if analyzer.is_trigger(op)]
    constructive = sum(p.constructive for p in pairs)
    return EpisodeInterdependence(
        total=len(pairs),
        constructive=constructive,
        non_constructive=len(pairs) - constructive,
        looping=sum(1 for p in pairs if p.category in ("looping", "looping_irrelevant")),
        irrelevant=sum(1 for p in pairs if not p.goal_reaching),
        useful_transfers=sum(p.useful_transfer for p in pairs),
        constructive_share=constructive / len(pairs) if pairs else None,
        agents=_agent_counts(trace, analyzer.links, pairs, triggers),
        pairs=_pair_counts(trace, analyzer.links, pairs, triggers),
        by_operator=dict(Counter(p.receiver_operator for p in pairs)),
        goals_reached=sum(1 for p in analyzer.final if p.predicate in domain.goal_predicates),
        operators=sum(1 for op in trace.operators if not op.is_noop),
        identity_repairs=len(trace.notes),
        interdependencies=pairs,
    )
