"""Yōkai's belief probes (`proagent.world.probes`): a seat is asked each card's colour.

Asked once per turn of the seat, from what it believes (`SeatBelief`: its view and what it
remembers), so the question holds nothing it may not know; the cards it has seen are those whose
colour it holds now or remembers seeing. The truth is the full table's colours, read only to score.
A turn is four game steps (observe, observe, move, hint), so ``game step // 4`` numbers it.
"""

from __future__ import annotations

from collections.abc import Mapping

from envs.yokai.rules import COLOUR_NAMES, TURN_STEPS
from proagent.domains.yokai.memory import SeatBelief
from proagent.domains.yokai.skills import as_belief
from proagent.domains.yokai.table import YokaiTable, YokaiWorldEnv
from proagent.world.probes import BeliefProbes, ProbeQuestion


def colour_question(env: YokaiWorldEnv, state: SeatBelief | YokaiTable, seat: int) -> ProbeQuestion | None:
    """Every card's colour, on the seat's own turn; None off turn or once the game is over."""
    belief = as_belief(state, seat)
    if not belief.my_turn:
        return None
    cards = belief.view.cards
    return ProbeQuestion(
        turn=belief.view.step // TURN_STEPS,
        items=tuple(str(c.index) for c in cards),
        values=COLOUR_NAMES[: env.config.num_colours],
        seen=frozenset(str(c.index) for c in cards if belief.colour_of(c.index) is not None),
    )


def true_colours(state: YokaiTable) -> Mapping[str, str]:
    """Card -> its colour on the full table (scoring only: never rendered into a prompt)."""
    return {str(c.index): str(c.colour) for c in state.game.cards}


BELIEF_PROBES = BeliefProbes(question=colour_question, truth=true_colours)

__all__ = ["BELIEF_PROBES", "colour_question", "true_colours"]
