"""The lamps responder: a sensible plan for the tests' lamps world from the seat's grounding.

The lamps world ships no scripted planner (`--llm scripted` is refused on it in one line): this
responder answers for it behind the loopback server.

Policy: press a dark lamp you stand on; else walk to the dark lamp you are strictly nearest to
(ties go to the lower seat); else wait. It predicts each teammate plays the same policy, and
answers in the format the prompt asked for (`proagent.llm.scripted.format_answer`).
"""

from __future__ import annotations

from proagent.llm.scripted import Answer, format_answer, require
from proagent.llm.types import Grounding

EXPLANATION = "That skill's preconditions do not hold here; a dark lamp nearer to me is better."


def _mine(seat: int, cell: int, lamp_cell: int, mates: dict[int, int]) -> bool:
    """Whether ``seat`` is the player nearest to the lamp (the lower seat wins a tie)."""
    mine = (abs(lamp_cell - cell), seat)
    return all(mine < (abs(lamp_cell - c), s) for s, c in mates.items())


def plan_for(seat: int, cell: int, mates: dict[int, int], lamps: dict[int, tuple[int, bool]]) -> str:
    """The skill ``seat`` at ``cell`` should take (``lamps``: index -> (cell, lit))."""
    dark = {i: c for i, (c, lit) in lamps.items() if not lit}
    if cell in dark.values():
        return "press()"
    mine = [i for i, c in dark.items() if _mine(seat, cell, c, mates)]
    if not mine:
        return "wait(1)"
    return f"go_to_lamp({min(mine, key=lambda i: (abs(dark[i] - cell), i))})"


def lamps_answer(grounding: Grounding | None) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    g = require(grounding)
    if g.purpose == "explain":
        return EXPLANATION
    facts = g.facts
    seat, cell = facts["me"]["seat"], facts["me"]["cell"]
    mates = {t["seat"]: t["cell"] for t in facts["teammates"]}
    lamps = {lamp["index"]: (lamp["cell"], lamp["lit"]) for lamp in facts["lamps"]}
    plan = plan_for(seat, cell, mates, lamps)
    everyone = {seat: cell, **mates}
    guesses = {s: plan_for(s, c, {o: oc for o, oc in everyone.items() if o != s}, lamps) for s, c in mates.items()}
    analysis = f"I am at cell {cell}; {sum(1 for _, lit in lamps.values() if lit)} of {len(lamps)} lamps are lit."
    several = len(guesses) > 1  # the prompt then asks for one prediction per teammate
    intention = (
        {f"player {s}": guess for s, guess in guesses.items()} if several else next(iter(guesses.values()), plan)
    )
    return format_answer(g, Answer(analysis, intention, plan))

