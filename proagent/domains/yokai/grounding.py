"""What one Yōkai seat's prompt may hold (``ground``), its memory line, and the table as text.

Only what that player may know: the board (card positions are public), the hints (a face-down
hint only as "face down"), the colours this seat holds now, the colours it remembers seeing whose
card has moved since (stated as remembered, with where the card was then), who has looked at which
card, the recent public events, and the legal moves of the phase (public: they follow from the
board). Nothing is read from the full view.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.yokai.rules import HintStatus, Phase
from proagent.domains.yokai.memory import SeatBelief
from proagent.domains.yokai.skills import PHASE_WORDS, move_arg
from proagent.domains.yokai.table import YokaiTable, clusters
from proagent.world.types import TeammateView


def ground_facts(b: SeatBelief, teammates: Sequence[TeammateView], score: float) -> dict:
    """Everything seat ``b.seat`` may know, as JSON-able data for the templates and test doubles."""
    view = b.view
    remembered = {s.card: s for s in b.remembered}
    cards = [
        {
            "index": c.index,
            "row": c.position[0],
            "col": c.position[1],
            "colour": c.colour,
            "remembered": None if c.index not in remembered else {
                "colour": remembered[c.index].colour,
                "row": remembered[c.index].position[0],
                "col": remembered[c.index].position[1],
                "step": remembered[c.index].step,
            },
            "hint": c.hint,
            "seen_by": list(c.seen_by),
        }
        for c in view.cards
    ]
    hints = [
        {
            "index": h.index,
            "status": h.status.name.lower(),
            "colours": list(h.colours) if h.colours else None,
            "card": h.card,
        }
        for h in view.hints
    ]
    return {
        "step": b.step,
        "horizon": b.horizon,
        "steps_left": b.horizon - b.step,
        "score": score,
        "game_step": view.step,
        "me": {"seat": b.seat, "my_turn": b.my_turn},
        "player": view.player,
        "phase": view.phase.name.lower(),
        "phase_words": PHASE_WORDS[view.phase],
        "turn_cards": list(view.turn_cards),
        "perfect_memory": b.perfect_memory,
        "cards": cards,
        "hints": hints,
        "face_down": sum(1 for h in view.hints if h.status == HintStatus.FACE_DOWN),
        "legal_moves": _legal_moves(b) if b.my_turn and view.phase == Phase.MOVE else [],
        "clusters": [{"colour": k, "joined": v} for k, v in sorted(clusters(view).items())],
        "events": list(b.log),
        "teammates": [{"seat": t.seat, "last_skill": t.last_skill} for t in teammates],
        "board": board_text(b),
    }


def _legal_moves(b: SeatBelief) -> list[str]:
    """The phase's legal moves as skill arguments (card_to_row_col), from the public legal mask."""
    lay, out = b.layout, []
    for action in sorted(b.legal):
        if lay.move_start <= action < lay.reveal_start:
            card, cell = divmod(action - lay.move_start, lay.cells)
            out.append(move_arg(card, cell // lay.grid_size, cell % lay.grid_size))
    return out


def board_text(b: SeatBelief) -> str:
    """Rows of the seat's board around the cards: ``R3`` a red card 3 (as this seat knows it),
    ``r3`` remembered red, ``?3`` unknown, ``*`` a hint on it, ``..`` empty; row and column numbers."""
    view, remembered = b.view, {s.card: s.colour for s in b.remembered}
    rows = [c.position[0] for c in view.cards]
    cols = [c.position[1] for c in view.cards]
    r_range = range(max(min(rows) - 1, 0), min(max(rows) + 2, b.layout.grid_size))
    c_range = range(max(min(cols) - 1, 0), min(max(cols) + 2, b.layout.grid_size))
    lines = ["    " + " ".join(f"{c:>4}" for c in c_range)]
    for r in r_range:
        cells = []
        for c in c_range:
            card = view.card_at((r, c))
            if card is None:
                cells.append("  ..")
                continue
            letter = card.colour[0].upper() if card.colour else remembered.get(card.index, "?")[0].lower()
            cells.append(f"{letter}{card.index}{'*' if card.hint is not None else ''}".rjust(4))
        lines.append(f"{r:>4} " + " ".join(cells))
    return "\n".join(lines)


def memory_line(facts: dict) -> str:
    """One line of the agent's memory: the phase and the colours it holds."""
    known = [f"{c['index']}={c['colour']}" for c in facts["cards"] if c["colour"]]
    return f"player {facts['player']}'s {facts['phase']} phase; colours you know: {', '.join(known) or 'none'}"


def table_text(state: YokaiTable) -> str:
    """The full table (every colour) for the trace and `proagent layouts`."""
    g = state.game
    cards = " ".join(f"{c.index}:{(c.colour or '?')[0].upper()}@{c.position[0]},{c.position[1]}" for c in g.cards)
    hints = " ".join(f"{h.index}:{h.status.name.lower()}/{'+'.join(h.colours or ())}" for h in g.hints)
    return f"step {state.step}/{state.horizon} player {g.player} {g.phase.name.lower()}\ncards {cards}\nhints {hints}"
