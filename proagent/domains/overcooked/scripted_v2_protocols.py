"""How the V2 scripted planner passes the recipe between chefs: the button, a counter signal, and what a
chef who does not know the recipe does to learn it (`scripted_v2`).

Everything comes from the seat's grounding (`scripted_seat.Seat`): its recipe, what it sees now
(its position and view radius), what it remembers (counters, pots), its recent history and the
layout's signal convention (the knowledge's ``[signal]`` table, which its notes state in words for
both chefs, e.g. in the test-time layouts: an ingredient2 on one of the counters [3, 1], [3, 2],
[3, 3] means tomato, tomato, tomato; none there means onion, onion, onion).

- The button costs points at each press: the chef who sees the recipe presses it once per recipe,
  when its teammate may not know it: at the start, when the pot it sees is empty (a soup was just
  taken out: a new recipe follows its delivery), or after a delivery it saw; never while a pot it
  sees is on its way to the recipe, nor when it pressed (its recent history) or saw the button lit
  (the button facts, which forget lights older than the last correct delivery) after the
  teammate's last delivery it saw. A chef who does not know the recipe watches the button
  (fetching a dish walks it where it sees the button) and presses it itself, where it can, only
  after two waits without a light.
- The signaller keeps the signal true: the unused ingredient on a signal counter for one recipe,
  in its hands (off the counters) for the other.
- The reader trusts the signal only when it sees all signal counters and the signaller had time to
  update it (a few steps after the start or after the last correct delivery); it goes and looks
  (fetching a dish walks it next to the pot) when they are out of view.
"""

from __future__ import annotations

from collections import Counter

from proagent.domains.overcooked.scripted_seat import Convention, Seat

START_SETTLE = 10  # steps the signaller needs at the start to fetch and place its sign
DELIVERY_SETTLE = 5  # steps it needs to update the sign after a correct delivery


def _sign_up(p: Seat, convention: Convention, in_view_only: bool) -> bool:
    return any(
        c.item == convention.item and c.position in convention.spots and (c.in_view or not in_view_only)
        for c in p.counters
    )


def read_signal(p: Seat) -> tuple[str, ...] | None:
    """The recipe the teammate's counter signal shows, when it can be trusted: all signal counters
    in view and settled; or, with an ingredient in hand (picked on a trusted reading), as remembered."""
    convention = p.convention
    if convention is None:
        return None
    if p.held not in ("nothing", "dish") and not p.held.startswith("soup"):
        return convention.present if _sign_up(p, convention, False) else convention.absent
    settled = p.step >= (START_SETTLE if p.stale_since is None else p.stale_since + DELIVERY_SETTLE)
    if not settled or not all(p.in_view(pos) for pos in convention.spots):
        return None
    return convention.present if _sign_up(p, convention, True) else convention.absent


def show_recipe(p: Seat) -> str:
    """A chef who knows the recipe but cannot cook it shows it to the teammate."""
    convention = p.convention
    if convention is not None and p.reach(convention.item):
        return _keep_signal(p, convention)
    if p.held != "nothing":
        return "place_obj_on_counter()"  # a button is pressed with empty hands
    if p.can("press_button()") and p.reach("button") and _teammate_may_not_know(p):
        return "press_button()"
    return "wait(3)" if p.pots_in_view else "wait(10)"


def _keep_signal(p: Seat, convention: Convention) -> str:
    """The signal true to the recipe: the item on a signal counter, or in the signaller's hands."""
    up = _sign_up(p, convention, False)
    want_up = sorted(p.recipe or ()) == sorted(convention.present)
    holding = p.held == convention.item
    if p.held not in ("nothing", convention.item):
        return "place_obj_on_counter()"  # free the hands for the sign
    if want_up:
        if up:
            return "wait(2)"
        return "place_obj_on_counter()" if holding else f"pickup({convention.item})"
    if not holding:
        # take the sign down and keep it in hand, or have one at hand for the next recipe change
        return f"pickup({convention.item})"
    return "wait(2)"  # (a sign still up while it holds another: nothing it can do to take it down)


def _teammate_may_not_know(p: Seat) -> bool:
    """No pot it sees is on its way to the recipe, no press of its own since the teammate's last
    delivery it saw is in its recent history, and it sees the pot (the start: nobody knows yet)."""
    recipe = p.recipe or ()
    for status, ingredients in p.pots:
        if status in ("cooking", "ready") or (status == "filling" and not Counter(ingredients) - Counter(recipe)):
            return False
    shown = [step for step, skill in p.memory if skill == "press_button()"]
    if p.button_lit is not None:
        shown.append(p.button_lit)  # its own press out of the recent history still lit the button
    delivered = p.saw_mate is not None and p.saw_mate[0] == "deliver_soup()" and p.saw_mate[1] > max(shown, default=-1)
    if shown and not delivered:
        return False
    return delivered or p.pots_in_view or p.step < START_SETTLE


def find_out(p: Seat) -> str:
    """No recipe to cook: look at an indicator, press the button, watch it or the signal counters."""
    went = any(skill == "go_to_indicator()" for _, skill in p.memory)
    convention = p.convention
    if convention is not None:
        if p.can("go_to_indicator()") and p.reach("recipe indicator") and not went:
            return "go_to_indicator()"
        if all(p.in_view(pos) for pos in convention.spots):
            return "wait(1)"  # the signaller is still setting its sign
        return _look(p)
    watching = any(p.in_view(pos) for pos in p.buttons)
    waited = len(p.memory) >= 2 and all(skill.startswith("wait") for _, skill in p.memory[-2:])
    if p.can("go_to_indicator()") and p.reach("recipe indicator") and not went and not watching:
        return "go_to_indicator()"
    if p.can("press_button()") and p.reach("button") and (waited or not p.buttons):
        return "press_button()"
    if p.buttons and not watching:
        return _look(p)
    return "wait(3)"


def _look(p: Seat) -> str:
    """Walk where the signal can be seen: fetching a dish takes the chef next to the pot."""
    if p.held == "nothing" and p.reach("dish") and p.reach("pot"):
        return "pickup(dish)"
    return "wait(3)"
