"""CUBE's side of COOP²-Repair: which push requirements the committed plans will meet.

COOP²'s estimator (``coop2_repair/``, ``HappyEureka/coop2-llm-mas``) predicts from the committed
plans which cooperative requirements hold when they run. Our CUBE plan is one block skill
(``push(b)``, ``push_up(b)``, ...): every agent planning a push of block b in direction d works
on task (b, d), the one `constraints.evaluate_step` scores. Per task, with w the block's weight:

- participation: at least w agents plan it;
- spatial: the face has w cells free and at least w of the planners can walk to one;
- temporal: at least w of those arrive within `ARRIVAL_SPREAD` steps of the first (an agent at
  the face keeps pushing until its skill times out; a failed push is harmless);
- dependency: the block's destination is inside the grid and free (`constraints.destination_free`).

Realised outcomes are the step's attempted tasks (`constraints.evaluate_step`, outcome set).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from envs.cube import FACES, CubeAction, CubeView
from proagent.agent.config import DEFAULT_SKILL_TIMEOUT
from proagent.domains.cube.constraints import CONSTRAINTS, destination_free, evaluate_step
from proagent.domains.cube.skills import PUSH_DIRECTIONS, bfs_first_step, free_face_cells, skill_book_for
from proagent.world.plan_effects import PlanEffects, Requirement
from proagent.world.types import SkillParseError

ARRIVAL_SPREAD = DEFAULT_SKILL_TIMEOUT  # steps: how long a pusher waits at the face (ProAgent's default skill timeout)
UNREACHABLE = 10_000


def task_name(block: int, direction: CubeAction) -> str:
    return f"block {block} {direction.name.lower()}"


def _pushes(view: CubeView, plans: Mapping[int, str]) -> dict[tuple[int, CubeAction], list[int]]:
    """Seats by the (block, direction) their push plan works on."""
    book = skill_book_for(view)
    groups: dict[tuple[int, CubeAction], list[int]] = {}
    for seat, plan in sorted(plans.items()):
        try:
            skill = book.parse(plan)
        except SkillParseError:
            continue
        direction = PUSH_DIRECTIONS.get(skill.name)
        if direction is None or skill.arg is None:
            continue
        block = int(skill.arg)
        if 0 <= block < len(view.blocks) and not view.blocks[block].delivered:
            groups.setdefault((block, direction), []).append(seat)
    return groups


def _arrival(view: CubeView, seat: int, block: int, direction: CubeAction) -> int:
    b = view.blocks[block]
    if view.agents[seat] in b.face_cells(direction):
        return 0
    steps, _ = bfs_first_step(view, seat, set(free_face_cells(view, seat, b, direction)))
    return steps if steps >= 0 else UNREACHABLE


def predict(view: CubeView, plans: Mapping[int, str]) -> list[Requirement]:
    """Every push the plans aim at, with its four requirements predicted."""
    out: list[Requirement] = []
    for (block, direction), seats in sorted(_pushes(view, plans).items(), key=lambda g: (g[0][0], int(g[0][1]))):
        b = view.blocks[block]
        w, task, who = b.weight, task_name(block, direction), tuple(seats)
        arrivals = {s: _arrival(view, s, block, direction) for s in seats}
        reach = [s for s in seats if arrivals[s] < UNREACHABLE]
        first = min((arrivals[s] for s in reach), default=0)
        timely = [s for s in reach if arrivals[s] - first <= ARRIVAL_SPREAD]
        face = [c for c in b.face_cells(direction) if view.in_grid(c)]
        names = ", ".join(f"player {s}" for s in seats)
        out += [
            Requirement(
                task, "participation", len(seats) >= w, who, f"weight {w} needs {w} pushers; planned by {names}"
            ),
            Requirement(
                task,
                "spatial",
                len(face) >= w and len(reach) >= w,
                who,
                f"{len(reach)} of the {w} needed can reach its {FACES[direction]} face",
            ),
            Requirement(
                task,
                "temporal",
                len(timely) >= w,
                who,
                f"{len(timely)} of the {w} needed arrive within {ARRIVAL_SPREAD} steps of the first",
            ),
            Requirement(
                task,
                "dependency",
                destination_free(view, b, direction),
                who,
                "the cells it would move into must be inside the grid and free of blocks and players",
            ),
        ]
    return out


def realised(before: CubeView, actions: Sequence[int], after: CubeView) -> list[Requirement]:
    """The step's attempted tasks (an outcome recorded) as requirement outcomes."""
    out: list[Requirement] = []
    for e in evaluate_step(before, actions, after):
        if e.outcome is None:
            continue
        face = set(before.blocks[e.block].face_cells(e.direction))
        seats = tuple(i for i, p in enumerate(before.agents) if p in face)
        out += [
            Requirement(task_name(e.block, e.direction), c, c in e.satisfied, seats, e.outcome) for c in CONSTRAINTS
        ]
    return out


PLAN_EFFECTS = PlanEffects(predict, realised)

__all__ = ["ARRIVAL_SPREAD", "PLAN_EFFECTS", "predict", "realised", "task_name"]
