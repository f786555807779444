"""The Yōkai scripted planner (`--llm scripted`): a careful player's answer from the seat's grounding (its own
facts only).

Off turn it waits for its turn. On its turn it ends the game once every card's colour it knows or
remembers (the last one follows from the counts) forms one cluster per colour; otherwise it looks
at cards it has not seen, moves a known card next to a known card of its colour (from the legal
moves the grounding lists; ``pass()`` when there are none), and in the hint phase places a revealed
hint on a known matching card, else reveals one, else places one anywhere free. It predicts its
teammates wait. The answer takes the format the prompt asked for (`proagent.llm.scripted.format_answer`). Asked for its
beliefs (a probe), it gives the colours it knows or remembers, reads a one-colour hint placed on a card it
never saw, and answers "unknown" for the rest.
"""

from __future__ import annotations

import json
from typing import Any

from proagent.domains.yokai.table import connected
from proagent.llm.scripted import Answer, format_answer, require
from proagent.llm.types import Grounding
from proagent.world.capabilities import ScriptedPlanning

EXPLANATION = "That skill is not allowed in this phase; an action of the phase is better."
WAIT = "wait(12)"

Facts = dict[str, Any]


def colour_of(card: dict[str, Any]) -> str | None:
    """What the seat knows now, else what it remembers seeing."""
    return card["colour"] or (card["remembered"] or {}).get("colour")


def sorted_out(facts: Facts) -> bool:
    """Every card's colour known or remembered (the last one by the counts), each colour one cluster."""
    colours = [colour_of(c) for c in facts["cards"]]
    known = set(colours) - {None}
    if colours.count(None) == 1 and known:
        short = [k for k in known if colours.count(k) < len(colours) // len(known)]
        colours[colours.index(None)] = short[0] if len(short) == 1 else None
    if None in colours:
        return False
    groups: dict[str, set[tuple[int, int]]] = {}
    for card, colour in zip(facts["cards"], colours, strict=True):
        groups.setdefault(str(colour), set()).add((card["row"], card["col"]))
    return all(connected(cells) for cells in groups.values())


def _neighbours(facts: Facts, card: int, cell: tuple[int, int], colour: str) -> int:
    return sum(
        1
        for c in facts["cards"]
        if c["index"] != card and abs(c["row"] - cell[0]) + abs(c["col"] - cell[1]) == 1 and colour_of(c) == colour
    )


def move_plan(facts: Facts) -> str:
    """The legal move that most raises a known card's same-colour neighbours."""
    if not facts["legal_moves"]:
        return "pass()"
    cards = {c["index"]: c for c in facts["cards"]}
    best, best_gain = facts["legal_moves"][0], None
    for move in facts["legal_moves"]:
        card, _, cell = move.partition("_to_")
        row, col = (int(x) for x in cell.split("_"))
        colour = colour_of(cards[int(card)])
        if colour is None:
            continue
        here = (cards[int(card)]["row"], cards[int(card)]["col"])
        gain = _neighbours(facts, int(card), (row, col), colour) - _neighbours(facts, int(card), here, colour)
        if best_gain is None or gain > best_gain:
            best, best_gain = move, gain
    return f"move({best})"


def hint_plan(facts: Facts) -> str:
    """Place a revealed hint on a known matching card, else reveal one, else place one anywhere free."""
    free = [c for c in facts["cards"] if c["hint"] is None]
    revealed = [h for h in facts["hints"] if h["status"] == "revealed"]
    for h in revealed:
        match = [c for c in free if colour_of(c) in (h["colours"] or [])]
        if match:
            return f"place_hint({h['index']}_on_{match[0]['index']})"
    face_down = [h for h in facts["hints"] if h["status"] == "face_down"]
    if face_down:
        return f"reveal_hint({face_down[0]['index']})"
    return f"place_hint({revealed[0]['index']}_on_{free[0]['index']})"


def plan_for(facts: Facts) -> str:
    """The careful skill for this seat's phase (``wait`` off turn)."""
    if not facts["me"]["my_turn"]:
        return WAIT
    phase = facts["phase"]
    if phase == "observe_first" and sorted_out(facts):
        return "end_game()"
    if phase in ("observe_first", "observe_second"):
        free = [c for c in facts["cards"] if c["hint"] is None and c["index"] not in facts["turn_cards"]]
        unseen = [c for c in free if colour_of(c) is None]
        return f"observe({(unseen or free)[0]['index']})"
    return move_plan(facts) if phase == "move" else hint_plan(facts)


def belief_answer(g: Grounding) -> str:
    """A probe's answer: seen colours, a placed one-colour hint's colour, else "unknown"."""
    hinted = {
        h["card"]: h["colours"][0] for h in g.facts["hints"] if h["card"] is not None and len(h["colours"] or []) == 1
    }
    cards = {str(c["index"]): c for c in g.facts["cards"]}
    return json.dumps({i: colour_of(cards[i]) or hinted.get(cards[i]["index"], "unknown") for i in g.probe_items})


def yokai_answer(grounding: Grounding | None) -> str:
    """The reply to one chat request: a plan (planner), one sentence (failure explainer) or the
    colours it believes (belief probe)."""
    g = require(grounding)
    if g.purpose == "explain":
        return EXPLANATION
    if g.purpose == "probe":
        return belief_answer(g)
    facts = g.facts
    plan = plan_for(facts)
    mates = [t["seat"] for t in facts["teammates"]]
    known = sum(1 for c in facts["cards"] if colour_of(c) is not None)
    analysis = f"I know {known} of {len(facts['cards'])} colours; {facts['face_down']} hints are face down."
    intention = {f"player {s}": WAIT for s in mates} if len(mates) > 1 else WAIT
    return format_answer(g, Answer(analysis, intention, plan))


SCRIPTED = ScriptedPlanning(answer=yokai_answer, source=__name__)
