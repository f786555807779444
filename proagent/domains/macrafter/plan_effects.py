"""MA-Crafter's side of COOP²-Repair: which collection requirements the committed plans will meet.

Restated from EmCoop's ``coop2_repair/macrafter_prediction.py`` (``HappyEureka/coop2-llm-mas``,
folder ``ma_crafter/``) for our skills: EmCoop predicts a timeline of each plan's symbolic
actions; our plan is one skill, so a ``collect(r)`` plan is taken to work on the cell its skill
would choose (`targets.collect_targets`, read on the whole state: the estimator is the
framework's, not an agent's) and to arrive when a shortest walk to a cell beside it ends. Per
(resource, cell) the plans share:

- participation: at least the resource's quorum of agents plan it;
- spatial: at least the quorum of those can reach a cell beside it;
- temporal: at least the quorum of those arrive within `ARRIVAL_SPREAD` steps of the first (the
  first one presses ``do`` until its skill gives up, `COLLECT_TIMEOUT`, walk included);
- dependency: at least the quorum of those hold the exact tool (EmCoop's
  ``satisfies_tool_requirement``).

Realised outcomes are the step's attempt events (`attempt_events`), the same cells: an attempt
scores each constraint met when its EmCoop score is 1 (participation as temporal: the agents that
pressed ``do`` in reach together).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from envs.macrafter.symbolic import CrafterView, Pos
from proagent.domains.macrafter.attempt_events import SCORED, attempt_events
from proagent.domains.macrafter.collector import acting_seats
from proagent.domains.macrafter.cooperative_tasks import task_states
from proagent.domains.macrafter.navigation import distances, stand_cells
from proagent.domains.macrafter.process_terms import holds_tool, task_label
from proagent.domains.macrafter.skills import COLLECT_TIMEOUT
from proagent.domains.macrafter.targets import collect_targets
from proagent.world.plan_effects import PlanEffects, Requirement

ARRIVAL_SPREAD = COLLECT_TIMEOUT
_COLLECT = re.compile(r"^collect\((\w+)\)$")
UNREACHABLE = 10_000


def _arrival(view: CrafterView, seat: int, cell: Pos) -> int:
    """Steps until the seat stands beside ``cell`` (UNREACHABLE when no walk gets there)."""
    beside = stand_cells(view, seat, cell)
    if view.agents[seat].position in beside:
        return 0
    reach = distances(view, seat)
    return min((reach[c][0] for c in beside if c in reach), default=UNREACHABLE)


def _tool_reason(quorum: int, tool: str, holding: int) -> str:
    if tool == "none":
        return "needs no tool"
    return f"needs {quorum} agent(s) holding a {tool}; {holding} of the planners do"


def _groups(view: CrafterView, plans: Mapping[int, str]) -> dict[tuple[str, Pos], list[int]]:
    groups: dict[tuple[str, Pos], list[int]] = {}
    for seat, plan in sorted(plans.items()):
        match = _COLLECT.match(plan)
        if not match or match.group(1) not in SCORED or not view.agents[seat].alive:
            continue
        cells = collect_targets(view, seat, match.group(1))
        if cells:
            groups.setdefault((match.group(1), cells[0]), []).append(seat)
    return groups


def predict(view: CrafterView, plans: Mapping[int, str]) -> list[Requirement]:
    """Every collection the plans aim at, with its four requirements predicted."""
    out: list[Requirement] = []
    for (resource, cell), seats in sorted(_groups(view, plans).items(), key=lambda g: (g[0][1], g[0][0])):
        rule = view.settings.resources[resource]
        q, task = rule.quorum, task_label(resource, cell)
        arrivals = {s: _arrival(view, s, cell) for s in seats}
        reach = [s for s in seats if arrivals[s] < UNREACHABLE]
        first = min((arrivals[s] for s in reach), default=0)
        timely = [s for s in reach if arrivals[s] - first <= ARRIVAL_SPREAD]
        tooled = [s for s in seats if holds_tool(view.agents[s], rule.tool)]
        who = tuple(seats)
        names = ", ".join(f"player {s}" for s in seats)
        out += [
            Requirement(task, "participation", len(seats) >= q, who, f"needs {q} agent(s) at once; planned by {names}"),
            Requirement(task, "spatial", len(reach) >= q, who, f"{len(reach)} of the {q} needed can walk beside it"),
            Requirement(
                task,
                "temporal",
                len(timely) >= q,
                who,
                f"{len(timely)} of the {q} needed arrive within {ARRIVAL_SPREAD} steps of the first "
                f"(arrivals: {', '.join(f'player {s} in {arrivals[s]}' for s in reach) or 'none'})",
            ),
            Requirement(task, "dependency", len(tooled) >= q, who, _tool_reason(q, rule.tool, len(tooled))),
        ]
    return out


def realised(before: CrafterView, actions: Sequence[int], after: CrafterView) -> list[Requirement]:
    """The step's attempt events as requirement outcomes on the same task names as `predict`."""
    out: list[Requirement] = []
    for event in attempt_events(after, task_states(after, acting_seats(before, actions))):
        task, seats = task_label(event.resource, event.cell), tuple(event.attempting)
        met = {c: s >= 1.0 for c, s in event.scores.items()}
        met["participation"] = met["temporal"]
        out += [Requirement(task, c, ok, seats, event.outcome) for c, ok in met.items()]
    return out


PLAN_EFFECTS = PlanEffects(predict, realised)

__all__ = ["ARRIVAL_SPREAD", "PLAN_EFFECTS", "predict", "realised"]
