"""The CUBE skills (EmCoop's action concepts), one `SkillDef` each, the skill book and Gamma.

EmCoop's dual layer: the planner names an action concept (``navigate(b)``, ``push(b)``,
``push_down(b)``, ``move_right(n)``, ``wait(n)``) and the controller grounds it into one primitive
action per step. A block scores at the goal (the rightmost column), so ``navigate(b)`` and ``push(b)``
mean its *left face*: the w cells left of a weight-w block, all of which must push at once.
EmCoop's ``push(block, steps)`` may also name a face: ``push_up``/``push_down``/``push_left`` (named
by the way the block moves) stand on the bottom/top/right face, for a block whose lane to the goal
another block holds (`block_ahead`). Each block skill's ``direction`` says which face it means.

Definitions (the prompt's wording, the Verificator's checks and the done-tests live together):

- ``navigate(b)``: walk (BFS around blocks and agents) to a free cell of block b's left face; done
  on arrival. The agent's ``skill_timeout`` bounds it when the face stays blocked.
- ``push(b)``: navigate to b's left face if not there, then push right every step. Done when b is
  delivered or after one successful push this agent took part in (b moved one cell): one cell per
  decision keeps the planner informed; a lone agent on a heavy block keeps pushing (a failed push
  is harmless, it stays in place) until teammates join or the skill times out.
- ``push_up(b)``, ``push_down(b)``, ``push_left(b)``: the same on the named face (bottom, top, right),
  pushing that way; they also require that the moved block would still lie inside the grid.
- ``move_<dir>(n)``: n plain steps in one direction (1..MAX_STEPS); done after n steps.
- ``wait(n)``: stay n steps (1..MAX_STEPS).
"""

from __future__ import annotations

from collections import deque

from envs.cube import FACES, CubeAction, CubeBlock, CubeEvent, CubeView
from envs.cube.rules import VECTORS
from proagent.world.kit.skills import ArgRange, SkillDef, TableSkillBook, after_steps, no_failures
from proagent.world.types import WAIT, Skill, UndoState

MAX_STEPS = 5
Pos = tuple[int, int]
DIRECTIONS = ("up", "down", "left", "right")

def left_face(block: CubeBlock) -> tuple[Pos, ...]:
    return block.face_cells(CubeAction.RIGHT)


def blocked_cells(state: CubeView, seat: int) -> set[Pos]:
    """Cells an agent cannot walk into: undelivered blocks and the other agents."""
    cells: set[Pos] = set()
    for block in state.remaining:
        cells |= block.cells
    return cells | {p for i, p in enumerate(state.agents) if i != seat}


def free_face_cells(
    state: CubeView, seat: int, block: CubeBlock, direction: CubeAction = CubeAction.RIGHT
) -> list[Pos]:
    """The cells of ``block``'s face for a push in ``direction`` (default: its left face) this agent
    could stand on (walkable: inside and left of the goal column, not taken by another)."""
    taken = blocked_cells(state, seat)
    return [c for c in block.face_cells(direction) if state.walkable(c) and c not in taken]


def bfs_first_step(state: CubeView, seat: int, goals: set[Pos], through_agents: bool = False) -> tuple[int, int | None]:
    """(distance, first action) of the shortest walk from the agent to any goal cell; (-1, None) if none.
    ``through_agents`` ignores teammates (they move), for when they wall the face off right now."""
    start = state.agents[seat]
    if start in goals:
        return 0, int(CubeAction.STAY)
    walls = {c for b in state.remaining for c in b.cells}
    if not through_agents:
        walls |= {p for i, p in enumerate(state.agents) if i != seat}
    seen: dict[Pos, int] = {start: -1}
    queue: deque[tuple[Pos, int]] = deque([(start, 0)])
    while queue:
        cell, dist = queue.popleft()
        for action in (CubeAction.RIGHT, CubeAction.UP, CubeAction.DOWN, CubeAction.LEFT):
            dx, dy = VECTORS[action]
            nxt = (cell[0] + dx, cell[1] + dy)
            if nxt in seen or not state.walkable(nxt) or nxt in walls:
                continue
            seen[nxt] = int(action) if seen[cell] == -1 else seen[cell]
            if nxt in goals:
                return dist + 1, seen[nxt]
            queue.append((nxt, dist + 1))
    return -1, None


def face_distance(state: CubeView, seat: int, block: CubeBlock) -> int:
    """Steps from the agent to the nearest free left-face cell of ``block`` (-1: none reachable)."""
    if state.agents[seat] in left_face(block):
        return 0
    return bfs_first_step(state, seat, set(free_face_cells(state, seat, block)))[0]


def on_face(state: CubeView, block: CubeBlock) -> int:
    """How many agents stand on the block's left face now."""
    face = set(left_face(block))
    return sum(1 for p in state.agents if p in face)


def block_ahead(state: CubeView, block: CubeBlock) -> int | None:
    """The nearest undelivered block ahead (to the right) in this block's rows: pushing into it
    fails (no chained pushes), so it must go home first. None when the lane is clear."""
    top, bottom = block.position[1], block.position[1] + block.weight
    ahead = [
        other
        for other in state.remaining
        if other.position[0] > block.position[0]
        and other.position[1] < bottom
        and top < other.position[1] + other.weight
    ]
    return min(ahead, key=lambda b: (b.position[0], b.index)).index if ahead else None


def _block(state: CubeView, skill: Skill) -> CubeBlock | None:
    index = int(skill.arg or 0)
    return state.blocks[index] if 0 <= index < len(state.blocks) else None


def _direction(skill: Skill) -> CubeAction:
    """The push whose face a block skill means (its row's ``tag``)."""
    return _DIRECTIONS[skill.name]


def _pushes(skill: Skill) -> bool:
    return skill.name.startswith("push")


def _block_failures(state: CubeView, seat: int, skill: Skill) -> list[str]:
    block = _block(state, skill)
    if block is None:
        return [f"there is no block {skill.arg} (blocks are 0..{len(state.blocks) - 1})"]
    if block.delivered:
        return [f"block {block.index} is already delivered"]
    direction = _direction(skill)
    face = FACES[direction]  # the goal-ward push's face reads "left"
    if _pushes(skill):  # the moved block must fit the grid (push(b) always does: the goal column takes it)
        dx, dy = VECTORS[direction]
        if not all(state.in_grid((x + dx, y + dy)) for x, y in block.cells):
            return [f"block {block.index} cannot move {direction.name.lower()}: the grid ends there"]
    if state.agents[seat] in block.face_cells(direction):
        return [] if _pushes(skill) else [f"you are already on block {block.index}'s {face} face"]
    free = free_face_cells(state, seat, block, direction)
    if not free:
        goal = any(c[0] == state.goal_column for c in block.face_cells(direction))
        where = ", outside the grid or in the goal column" if goal else " or outside the grid"
        return [f"every cell of block {block.index}'s {face} face is taken{where}"]
    if bfs_first_step(state, seat, set(free), through_agents=True)[0] < 0:
        return [f"no path leads to block {block.index}'s {face} face"]
    return []


def _at_face(state: CubeView, seat: int, skill: Skill, steps: int) -> bool:
    block = _block(state, skill)
    return block is None or block.delivered or state.agents[seat] in block.face_cells(_direction(skill))


def _pushed(state: CubeView, seat: int, skill: Skill, steps: int) -> bool:
    """Delivered, or moved one cell the skill's way by a push this agent took part in."""
    block = _block(state, skill)
    if block is None or block.delivered:
        return True
    record = state.push_of(_direction(skill), block.index)
    return steps > 0 and state.agent_push[seat] == block.index and record is not None and record.ok


def _move_failures(state: CubeView, seat: int, skill: Skill) -> list[str]:
    direction = skill.name.removeprefix("move_")
    dx, dy = VECTORS[int(CubeAction[direction.upper()])]
    x, y = state.agents[seat]
    nxt = (x + dx, y + dy)
    if not state.in_grid(nxt):
        return [f"a wall is {direction} of you"]
    if not state.walkable(nxt):
        return [f"the goal column {state.goal_column} is {direction} of you: only blocks enter it"]
    if state.block_at(nxt) is not None:
        return [f"block {state.block_at(nxt).index} is {direction} of you (walking into it pushes it)"]
    return []


def _move_def(direction: str) -> SkillDef:
    return SkillDef(
        f"move_{direction}",
        f"move_{direction}(n)",
        f"take n steps {direction} (1 to {MAX_STEPS}); walking into a block's face pushes it",
        "steps",
        _move_failures,
        after_steps,
    )


# Where a side push's pushers stand, and what the push is for (a block scores only at the goal).
_LANE = (
    "when a block is in another's way to the goal column {{ goal_column }}, pushing either of them up or down"
    " out of the other's rows clears the way"
)
_SIDE_PUSHES = {
    CubeAction.UP: ("just below it", _LANE),
    CubeAction.DOWN: ("just above it", _LANE),
    CubeAction.LEFT: ("just right of it", "it moves away from the goal column {{ goal_column }}: only to make room"),
}


def _side_push_def(direction: CubeAction) -> SkillDef:
    way = direction.name.lower()
    where, use = _SIDE_PUSHES[direction]
    return SkillDef(
        f"push_{way}",
        f"push_{way}(b)",
        f"go to block b's {FACES[direction]} face (the cells {where}) if needed, then push it {way} until it moves"
        f" one cell (it needs as many pushers on that face as its weight); {use}",
        "block",
        _block_failures,
        _pushed,
        direction,
    )


SKILLS: tuple[SkillDef, ...] = (
    SkillDef(
        "navigate",
        "navigate(b)",
        "walk around blocks and players to a free cell of block b's left face (where pushers stand)",
        "block",
        _block_failures,
        _at_face,
        CubeAction.RIGHT,
    ),
    SkillDef(
        "push",
        "push(b)",
        "go to block b's left face if needed, then push it right until it moves one cell (it needs as many"
        " pushers on that face as its weight) or reaches the goal column {{ goal_column }}",
        "block",
        _block_failures,
        _pushed,
        CubeAction.RIGHT,
    ),
    *(_side_push_def(d) for d in (CubeAction.UP, CubeAction.DOWN, CubeAction.LEFT)),
    *(_move_def(d) for d in DIRECTIONS),
    SkillDef(
        WAIT, "wait(n)", f"stay where you are for n steps (1 to {MAX_STEPS})", "steps", no_failures, after_steps
    ),
)

_DIRECTIONS: dict[str, CubeAction] = {d.name: d.tag for d in SKILLS if d.tag is not None}
# The push skills and the way each moves its block (push: right, push_up: up, ...), from the table.
PUSH_DIRECTIONS: dict[str, CubeAction] = {name: d for name, d in _DIRECTIONS.items() if name.startswith("push")}
# A successful push (or delivery) in a direction completes the block skill pushing that way.
_PUSH_OF_DIRECTION: dict[str, str] = {
    d.tag.name.lower(): d.name for d in SKILLS if d.tag is not None and d.name.startswith("push")
}


def _own_cell(state: CubeView, seat: int) -> UndoState:
    """What an undo cycle leaves unchanged: the agent's cell (walking away and back is a loop)."""
    return UndoState(state.agents[seat])


def _skill_of_event(event: CubeEvent) -> Skill | None:
    """A teammate's successful push on block b completes the skill pushing b that way (right:
    push(b), down: push_down(b), ...); a failed push or a plain move names no intention."""
    if event.kind in ("push_ok", "deliver") and event.block is not None and event.direction in _PUSH_OF_DIRECTION:
        return Skill(_PUSH_OF_DIRECTION[event.direction], event.block)
    return None


def cube_skill_book(num_blocks: int) -> TableSkillBook:
    """The skills of a scenario with ``num_blocks`` blocks; a block moved or delivered, by anyone,
    is progress (it clears the loop guard)."""
    ranges = {"block": ArgRange(0, num_blocks - 1), "steps": ArgRange(1, MAX_STEPS)}
    return TableSkillBook(SKILLS, ranges, frozenset({"push_ok", "deliver"}), _own_cell, _skill_of_event)


def skill_book_for(state: CubeView) -> TableSkillBook:
    return cube_skill_book(len(state.blocks))


class CubeController:
    """Gamma(skill, state): one primitive action per step, BFS around blocks and agents."""

    def __init__(self, book: TableSkillBook, seat: int, seed: int = 0) -> None:
        self.book = book
        self.seat = seat

    def act(self, state: CubeView, skill: Skill) -> int:
        if skill.name.startswith("move_"):
            return int(CubeAction[skill.name.removeprefix("move_").upper()])
        if skill.name in _DIRECTIONS:
            return self._to_block(state, skill)
        return int(CubeAction.STAY)

    def _to_block(self, state: CubeView, skill: Skill) -> int:
        block = _block(state, skill)
        if block is None or block.delivered:
            return int(CubeAction.STAY)
        direction = _direction(skill)
        if state.agents[self.seat] in block.face_cells(direction):
            return int(direction) if _pushes(skill) else int(CubeAction.STAY)
        goals = set(free_face_cells(state, self.seat, block, direction))
        _, action = bfs_first_step(state, self.seat, goals)
        if action is None:  # teammates wall the way off now: head through them, they will move
            _, action = bfs_first_step(state, self.seat, goals, through_agents=True)
        return int(CubeAction.STAY) if action is None else action
