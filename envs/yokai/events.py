"""The Yōkai event stream: what the acting player's action did, from (view, actions, next view).

Events hold only public facts (which card was looked at, not its colour; a placed hint's colours,
not whether it fits), so any player's log may show every event. The NumPy reference's steps give
the same stream, and a test holds the two equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

from envs.yokai.rules import ActionKind, ActionLayout
from envs.yokai.scenario import YokaiConfig
from envs.yokai.symbolic import Cell, YokaiView


class YokaiEventKind(StrEnum):
    OBSERVE = "observe"
    MOVE = "move"
    SKIP_MOVE = "skip_move"  # no card had a legal move, the mover passed
    REVEAL = "reveal"
    PLACE = "place"
    END = "end"


@dataclass(frozen=True, slots=True)
class YokaiEvent:
    step: int  # the step at which the action was taken
    player: int
    kind: YokaiEventKind
    card: int | None = None
    origin: Cell | None = None  # the card's cell before a move
    target: Cell | None = None  # after a move; the receiving card's cell for a placement
    hint: int | None = None
    hint_colours: tuple[str, ...] | None = None

    def describe(self) -> str:
        who = f"player {self.player}"
        if self.kind == YokaiEventKind.OBSERVE:
            return f"{who} looked at card {self.card} at {self.origin}"
        if self.kind == YokaiEventKind.MOVE:
            return f"{who} moved card {self.card} from {self.origin} to {self.target}"
        if self.kind == YokaiEventKind.REVEAL:
            return f"{who} revealed hint {self.hint} ({'/'.join(self.hint_colours or ())})"
        if self.kind == YokaiEventKind.PLACE:
            return f"{who} placed hint {self.hint} ({'/'.join(self.hint_colours or ())}) on card {self.card}"
        if self.kind == YokaiEventKind.SKIP_MOVE:
            return f"{who} could move no card"
        return f"{who} ended the game"

    def to_record(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def extract_events(
    before: YokaiView, actions: Sequence[int], after: YokaiView, config: YokaiConfig
) -> list[YokaiEvent]:
    """The acting player's event; none when the action was illegal or the game was already over."""
    if before.done or after.step == before.step:
        return []
    player = before.player
    d = ActionLayout(config.num_cards, config.num_hints, config.grid_size).decode(int(actions[player]))
    g, base = config.grid_size, {"step": before.step, "player": player}
    if d.kind == ActionKind.OBSERVE:
        return [YokaiEvent(kind=YokaiEventKind.OBSERVE, card=d.card, origin=before.cards[d.card].position, **base)]
    if d.kind == ActionKind.MOVE:
        origin, target = before.cards[d.card].position, (d.cell // g, d.cell % g)
        return [YokaiEvent(kind=YokaiEventKind.MOVE, card=d.card, origin=origin, target=target, **base)]
    if d.kind in (ActionKind.REVEAL, ActionKind.PLACE):
        hint = after.hints[d.hint]
        if d.kind == ActionKind.REVEAL:
            return [YokaiEvent(kind=YokaiEventKind.REVEAL, hint=d.hint, hint_colours=hint.colours, **base)]
        target = (d.cell // g, d.cell % g)
        kind = YokaiEventKind.PLACE
        return [YokaiEvent(kind=kind, card=hint.card, target=target, hint=d.hint, hint_colours=hint.colours, **base)]
    if d.kind == ActionKind.END:
        return [YokaiEvent(kind=YokaiEventKind.END, **base)]
    return [YokaiEvent(kind=YokaiEventKind.SKIP_MOVE, **base)]
