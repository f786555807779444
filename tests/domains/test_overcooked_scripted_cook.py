"""The Overcooked scripted cook (`--llm scripted`, the tests' double) reads what its prompt says: a
cook that cannot reach the pot supplies its teammate across the counter, one onion and one dish
waiting at most, and a skill the Verificator refused this decision is not proposed again."""

from __future__ import annotations

from pathlib import Path

from proagent.cli import main
from proagent.domains.overcooked.scripted import classic_plan

EMPTY = [{"status": "empty", "num_ingredients": 0}]
COOKING = [{"status": "cooking", "num_ingredients": 3}]
SPLIT = {"onion": 0, "dish": 1, "pot": None, "serving spot": None, "empty counter": 0}  # the supplier's side
POT_SIDE = {"onion": None, "dish": None, "pot": 1, "serving spot": 2, "empty counter": 0}


def test_a_cook_that_cannot_reach_the_pot_hands_over_what_it_holds() -> None:
    assert classic_plan("onion", EMPTY, SPLIT) == "place_obj_on_counter()"
    assert classic_plan("dish", COOKING, SPLIT) == "place_obj_on_counter()"
    assert classic_plan("onion", EMPTY, {**SPLIT, "pot": 3}) == "put_onion_in_pot()"  # reachable: its own


def test_a_supplier_keeps_one_onion_and_one_dish_waiting_at_most() -> None:
    assert classic_plan("nothing", EMPTY, SPLIT) == "pickup(onion)"
    assert classic_plan("nothing", EMPTY, SPLIT, on_counters=("onion",)) == "wait(3)"
    assert classic_plan("nothing", COOKING, SPLIT, on_counters=("onion",)) == "pickup(dish)"
    assert classic_plan("nothing", COOKING, SPLIT, on_counters=("dish",)) == "wait(3)"  # the pot takes no onion


def test_the_pot_side_waits_briefly_for_a_supply_it_cannot_fetch() -> None:
    assert classic_plan("nothing", EMPTY, POT_SIDE) == "wait(1)"
    assert classic_plan("nothing", EMPTY, {**POT_SIDE, "onion": 2}) == "pickup(onion)"  # one set on the counter


def test_a_refused_skill_gives_way_to_the_next_choice() -> None:
    assert classic_plan("onion", EMPTY, {}, frozenset({"put_onion_in_pot()"})) == "place_obj_on_counter()"
    refused = frozenset({"put_onion_in_pot()", "place_obj_on_counter()"})
    assert classic_plan("onion", EMPTY, {}, refused) == "wait(1)"


def test_both_seats_of_the_split_kitchen_score_with_the_greedy_partner(tmp_path: Path, capsys) -> None:
    """forced_coordination, seed 0: seat 1 (onions and dishes, no pot) scored 0 with every plan
    proposed against an unreachable pot refused; now neither seat has a plan refused."""
    for seat in ("0", "1"):
        args = ["play", "--layout", "forced_coordination", "--partner", "greedy", "--seat", seat, "--llm", "scripted"]
        args += ["--horizon", "120", "--runs-dir", str(tmp_path), "--no-gif", "--live", "off"]
        assert main(args) == 0
        printed = capsys.readouterr()
        line = next(x for x in (printed.out + printed.err).splitlines() if x.startswith("episode 1:"))
        assert "score 0 " not in line and " 0 rejected plans" in line and " 0 fallbacks" in line, line


def test_the_verificators_conclusion_reads_the_counters_as_the_plan_does() -> None:
    """A supplier whose onion already waits on a counter: the llm3 conclusion names the next
    useful skill (wait), not a second onion."""
    from proagent.domains.overcooked.scripted import verify_answer
    from proagent.llm.types import Grounding

    facts = {"me": {"held": None}, "pots": EMPTY, "distances": SPLIT, "counters": [{"item": "onion"}]}
    g = Grounding(
        purpose="verify",
        seat=1,
        facts=facts,
        output_format="text",
        skill="put_onion_in_pot()",
        reasons=("the pot is unreachable",),
        verify_round="conclusion",
    )
    conclusion = verify_answer(g)
    assert "wait(3) makes progress" in conclusion and "pickup(onion)" not in conclusion, conclusion
