"""The Yōkai skills, one `SkillDef` each, the skill book and Gamma (one primitive action per skill).

The agent decides phase by phase: each phase skill is exactly one action of eq. 9, mapped through
the env's `ActionLayout`, and its check is the env's own legal mask (public: it depends on the
board, the hints, the phase and the cards looked at this turn), so a skill the phase does not
allow is refused with the reason. Two-number arguments use one token the kit's parser reads:
``move(4_to_2_5)`` moves card 4 to row 2, column 5; ``place_hint(1_on_4)`` puts hint 1 on card 4.
``wait(n)`` lets the others play: it ends after n steps or when this seat's turn comes.
"""

from __future__ import annotations

from envs.yokai.rules import HintStatus, Phase
from proagent.domains.yokai.memory import SeatBelief, belief_of
from proagent.domains.yokai.table import TableEvent, YokaiTable
from proagent.world.kit.skills import ArgChoices, ArgRange, SkillDef, TableSkillBook
from proagent.world.types import WAIT, Skill, UndoState

MAX_WAIT = 12
PHASE_WORDS = {
    Phase.OBSERVE_FIRST: "look at a first card (or end the game)",
    Phase.OBSERVE_SECOND: "look at a second card",
    Phase.MOVE: "move a card",
    Phase.HINT: "reveal or place a hint",
}
SKILL_PHASES = {
    "observe": (Phase.OBSERVE_FIRST, Phase.OBSERVE_SECOND),
    "move": (Phase.MOVE,),
    "pass": (Phase.MOVE,),
    "reveal_hint": (Phase.HINT,),
    "place_hint": (Phase.HINT,),
    "end_game": (Phase.OBSERVE_FIRST,),
}


def as_belief(state: SeatBelief | YokaiTable, seat: int) -> SeatBelief:
    """A seat's belief; the full table is projected onto the seat's own view (no memory)."""
    return belief_of(state, seat) if isinstance(state, YokaiTable) else state


def move_arg(card: int, row: int, col: int) -> str:
    return f"{card}_to_{row}_{col}"


def place_arg(hint: int, card: int) -> str:
    return f"{hint}_on_{card}"


def read_move(arg: str) -> tuple[int, int, int]:
    card, _, cell = arg.partition("_to_")
    row, col = cell.split("_")
    return int(card), int(row), int(col)


def read_place(arg: str) -> tuple[int, int]:
    hint, _, card = arg.partition("_on_")
    return int(hint), int(card)


def action_of(b: SeatBelief, skill: Skill) -> int:
    """The eq. 9 action id of a phase skill (NOOP for ``pass`` and ``wait``)."""
    lay, arg = b.layout, str(skill.arg)
    if skill.name == "observe":
        return lay.observe(int(arg))
    if skill.name == "move":
        card, row, col = read_move(arg)
        return lay.move(card, row * lay.grid_size + col)
    if skill.name == "reveal_hint":
        return lay.reveal(int(arg))
    if skill.name == "place_hint":
        hint, card = read_place(arg)
        r, c = b.view.cards[card].position
        return lay.place(hint, r * lay.grid_size + c)
    return 0 if skill.name == "end_game" else lay.noop


def _parts(skill: Skill) -> tuple[int | None, int | None]:
    """(card, hint) that a phase skill names; None where it names none."""
    arg = str(skill.arg)
    if skill.name == "observe":
        return int(arg), None
    if skill.name == "move":
        return read_move(arg)[0], None
    if skill.name == "reveal_hint":
        return None, int(arg)
    if skill.name == "place_hint":
        hint, card = read_place(arg)
        return card, hint
    return None, None


REFUSALS = {
    "end_game": "this game may not be ended yet: the rules allow it only after a number of turns",
    "move": "the cell must be empty and every card must stay one connected group",
    "pass": "a card can still be moved: pass is only for a move phase where no move is legal",
}


def _not_allowed(b: SeatBelief, skill: Skill) -> str:
    """Why the legal mask refuses a skill of the right phase: its card, its hint, or the board."""
    card, hint = _parts(skill)
    if card is not None and b.view.cards[card].hint is not None:
        return f"card {card} carries hint {b.view.cards[card].hint}: it can no longer be looked at, moved or hinted"
    if skill.name == "observe" and card in b.view.turn_cards:
        return f"you already looked at card {card} this turn: look at a different one"
    if hint is not None:
        status = b.view.hints[hint].status
        want = HintStatus.FACE_DOWN if skill.name == "reveal_hint" else HintStatus.REVEALED
        if status != want:
            return f"hint {hint} is {status.name.lower().replace('_', ' ')}"
    if skill.name == "move":
        return f"card {card} cannot go there: {REFUSALS['move']}"
    return REFUSALS.get(skill.name, f"{skill} is not a legal action now")


def phase_failures(state: SeatBelief | YokaiTable, seat: int, skill: Skill) -> list[str]:
    """The env's legal mask, worded: whose turn, which phase, then the card or hint."""
    b = as_belief(state, seat)
    if b.view.done:
        return ["the game is over"]
    if not b.my_turn:
        return [f"it is player {b.view.player}'s turn, not yours: wait"]
    if b.phase not in SKILL_PHASES[skill.name]:
        return [f"{skill.name} is not allowed in this phase: now you {PHASE_WORDS[b.phase]}"]
    return [] if action_of(b, skill) in b.legal else [_not_allowed(b, skill)]


def wait_failures(state: SeatBelief | YokaiTable, seat: int, skill: Skill) -> list[str]:
    """Waiting on one's own turn would stall the game: only other players' turns may be waited out."""
    b = as_belief(state, seat)
    return [f"it is your turn: {PHASE_WORDS[b.phase]} (waiting would stall the game)"] if b.my_turn else []


def one_action(state: SeatBelief | YokaiTable, seat: int, skill: Skill, steps: int) -> bool:
    return steps >= 1


def waited(state: SeatBelief | YokaiTable, seat: int, skill: Skill, steps: int) -> bool:
    """n steps, or this seat's turn has come."""
    b = as_belief(state, seat)
    return steps >= int(skill.arg or 1) or (steps >= 1 and b.my_turn)


SKILLS: tuple[SkillDef, ...] = (
    SkillDef("observe", "observe(c)", "look at card c privately (phases 1 and 2 of your turn; two different"
             " cards per turn; not a card carrying a hint)", "card", phase_failures, one_action),
    SkillDef("move", "move(c_to_r_k)", "move card c to the empty cell at row r, column k (phase 3), e.g."
             " move(4_to_2_5); all {{ num_cards }} cards must stay one side-connected group", "move", phase_failures,
             one_action),
    SkillDef("pass", "pass()", "skip phase 3 when no card can be moved at all", None, phase_failures, one_action),
    SkillDef("reveal_hint", "reveal_hint(h)", "turn face-down hint h face up (phase 4): it then scores 2 instead"
             " of 5", "hint", phase_failures, one_action),
    SkillDef("place_hint", "place_hint(h_on_c)", "put revealed hint h on card c (phase 4), e.g. place_hint(1_on_4):"
             " +1 if c has one of its colours, -1 otherwise", "place", phase_failures, one_action),
    SkillDef("end_game", "end_game()", "end the game now instead of looking at a first card (phase 1)", None,
             phase_failures, one_action),
    SkillDef(WAIT, "wait(n)", f"let the others play: wait n steps (1 to {MAX_WAIT}) or until your turn comes",
             "steps", wait_failures, waited),
)


def _positions(state: SeatBelief | YokaiTable, seat: int) -> UndoState:
    """A card moved away and back is an undo: the board's positions (public) are the loop guard's view."""
    return UndoState(tuple(c.position for c in as_belief(state, seat).view.cards))


def _skill_of_event(event: TableEvent) -> Skill | None:
    """The phase skill a teammate's event completes (belief correction)."""
    if event.kind == "observe":
        return Skill("observe", event.card)
    if event.kind == "move" and event.target is not None:
        return Skill("move", move_arg(event.card or 0, *event.target))
    if event.kind == "reveal":
        return Skill("reveal_hint", event.hint)
    if event.kind == "place":
        return Skill("place_hint", place_arg(event.hint or 0, event.card or 0))
    return {"skip_move": Skill("pass"), "end": Skill("end_game")}.get(event.kind)


def yokai_skill_book(num_cards: int, num_hints: int, grid_size: int) -> TableSkillBook:
    """The skills of one game size; a move, a hint revealed or placed, by anyone, is progress."""
    cells = [(r, c) for r in range(grid_size) for c in range(grid_size)]
    ranges = {
        "card": ArgRange(0, num_cards - 1),
        "hint": ArgRange(0, num_hints - 1),
        "steps": ArgRange(1, MAX_WAIT),
        "move": ArgChoices(tuple(move_arg(y, r, c) for y in range(num_cards) for r, c in cells)),
        "place": ArgChoices(tuple(place_arg(h, y) for h in range(num_hints) for y in range(num_cards))),
    }
    progress = frozenset({"move", "reveal", "place"})
    return TableSkillBook(SKILLS, ranges, progress, _positions, _skill_of_event)


def skill_book_for(state: SeatBelief | YokaiTable) -> TableSkillBook:
    """The book of the state's game size (its action layout)."""
    lay = state.layout
    return yokai_skill_book(lay.num_cards, lay.num_hints, lay.grid_size)


def first_legal(b: SeatBelief) -> int:
    """The lowest legal action that does not end the game (NOOP off turn)."""
    moves = sorted(a for a in b.legal if a != 0)
    return moves[0] if moves else b.layout.noop


class YokaiController:
    """Gamma(skill, state): the skill's one action. A fallback ``wait`` on this seat's own turn would
    stall the game (NOOP is illegal then and changes nothing), so it takes the first legal action."""

    def __init__(self, book: TableSkillBook, seat: int, seed: int = 0) -> None:
        self.book, self.seat = book, seat

    def act(self, state: SeatBelief | YokaiTable, skill: Skill) -> int:
        b = as_belief(state, self.seat)
        if not b.my_turn:
            return b.layout.noop
        action = action_of(b, skill)
        return action if action in b.legal else first_legal(b)


__all__ = ["SKILLS", "YokaiController", "action_of", "skill_book_for", "yokai_skill_book"]
