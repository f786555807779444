"""A scripted test model for the lamps world: a sensible plan read off the planner's prompt.

It is the responder behind `proagent.llm.fake_server.FakeChatServer`, so play and eval run the real
prompt -> HTTP -> parse -> verify path without a model. It reads the state text of this world's
``proagent`` prompt set and answers in the format the prompt asked for: JSON when the request
carries a schema or the prompt asks for a JSON object, else ``Analysis:/Intention:/Plan:`` lines.
Policy: press a dark lamp you stand on; else walk to the dark lamp you are strictly nearest to
(ties go to the lower seat); else wait.
"""

from __future__ import annotations

import re
from typing import Any

from proagent.llm.answer_format import format_answer

_ME = re.compile(r"You \(player (\d+)\) are at cell (\d+)")
_MATE = re.compile(r"Teammate \(player (\d+)\) is at cell (\d+)")
_LAMP = re.compile(r"Lamp (\d+) at cell (\d+): (dark|lit)")


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


def lamps_answer(body: dict[str, Any]) -> str:
    """The reply to one chat request: a plan (planner) or one sentence (failure explainer)."""
    user = body["messages"][-1]["content"]
    if "Answer" not in user:
        return "That skill's preconditions do not hold here; a dark lamp nearer to me is better."
    me = _ME.search(user)
    if me is None:
        return "Plan: wait(1)"
    seat, cell = int(me.group(1)), int(me.group(2))
    mates = {int(s): int(c) for s, c in _MATE.findall(user)}
    lamps = {int(i): (int(c), state == "lit") for i, c, state in _LAMP.findall(user)}
    plan = plan_for(seat, cell, mates, lamps)
    everyone = {seat: cell, **mates}
    guesses = {s: plan_for(s, c, {o: oc for o, oc in everyone.items() if o != s}, lamps) for s, c in mates.items()}
    analysis = f"I am at cell {cell}; {sum(1 for _, lit in lamps.values() if lit)} of {len(lamps)} lamps are lit."
    several = len(guesses) > 1  # the prompt then asks for one prediction per teammate
    intention = {f"player {s}": g for s, g in guesses.items()} if several else next(iter(guesses.values()), plan)
    return format_answer(body, user, analysis, intention, plan)
