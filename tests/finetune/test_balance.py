"""`--balance worlds`: the same number of pairs from every world, drawn with the seed, so a world
with many decisions an episode does not swamp one with few."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.finetune.dataset import DataFilter, SupervisedPair, select_pairs, world_counts
from proagent.llm.types import Message


def _pairs(world: str, n: int) -> list[SupervisedPair]:
    return [
        SupervisedPair(
            messages=(Message(role="user", content=f"{world} state {i}"),),
            answer=f"plan {i}",
            world=world,
            run=f"run-{world}",
            episode=0,
            step=i,
            score=0.0,
            accepted=True,
        )
        for i in range(n)
    ]


MANY, FEW = _pairs("overcooked/counter_circuit", 40), _pairs("cube/medium_3a", 7)


def test_balance_draws_the_smallest_worlds_count_from_each_world():
    kept = select_pairs(MANY + FEW, DataFilter(balance="worlds"))
    assert world_counts(kept) == {"cube/medium_3a": 7, "overcooked/counter_circuit": 7}
    unbalanced = select_pairs(MANY + FEW, DataFilter())
    assert world_counts(unbalanced) == {"cube/medium_3a": 7, "overcooked/counter_circuit": 40}


def test_the_draw_is_seeded_spread_over_the_world_and_kept_in_order():
    first = select_pairs(MANY + FEW, DataFilter(balance="worlds", seed=1))
    assert first == select_pairs(MANY + FEW, DataFilter(balance="worlds", seed=1))
    other = select_pairs(MANY + FEW, DataFilter(balance="worlds", seed=2))
    steps = [p.step for p in first if p.world.startswith("overcooked")]
    assert steps != [p.step for p in other if p.world.startswith("overcooked")]
    assert steps == sorted(steps) and steps != list(range(7))  # a draw, not the opening decisions
    order = {id(p): i for i, p in enumerate(MANY + FEW)}
    assert [order[id(p)] for p in first] == sorted(order[id(p)] for p in first)


def test_a_worlds_draw_does_not_depend_on_the_other_worlds():
    """Its own seeded stream: adding a third world of the same size leaves the others' draw as it was."""
    third = _pairs("yokai/9c_2p", 7)
    alone = [p for p in select_pairs(MANY + FEW, DataFilter(balance="worlds")) if p.world.startswith("overcooked")]
    joined = select_pairs(MANY + FEW + third, DataFilter(balance="worlds"))
    assert [p for p in joined if p.world.startswith("overcooked")] == alone


def test_max_per_world_caps_the_draw_and_filters_apply_first():
    assert world_counts(select_pairs(MANY + FEW, DataFilter(balance="worlds", max_per_world=3))) == {
        "cube/medium_3a": 3,
        "overcooked/counter_circuit": 3,
    }
    rejected = [p.model_copy(update={"accepted": False}) for p in FEW[:5]]
    kept = select_pairs(MANY + rejected + FEW[5:], DataFilter(balance="worlds"))
    assert Counter(p.world for p in kept) == {"cube/medium_3a": 2, "overcooked/counter_circuit": 2}


def test_an_unknown_balance_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture):
    with pytest.raises(SystemExit) as exit_info:
        main(["finetune", str(tmp_path), "--out", str(tmp_path / "a"), "--balance", "layouts"])
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2 and "--balance" in err and err.count("\n") == 0
    assert not (tmp_path / "a").exists()


def test_capped_draws_up_to_the_cap_from_each_world_and_all_of_a_smaller_one():
    kept = select_pairs(MANY + FEW, DataFilter(balance="capped", max_per_world=12, seed=4))
    assert world_counts(kept) == {"cube/medium_3a": 7, "overcooked/counter_circuit": 12}
    drawn = [p.step for p in kept if p.world.startswith("overcooked")]
    assert drawn != list(range(12)) and drawn == sorted(drawn)  # a draw over the whole run, kept in order
    assert kept == select_pairs(MANY + FEW, DataFilter(balance="capped", max_per_world=12, seed=4))


def test_capped_without_a_cap_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture):
    code = main(["finetune", str(tmp_path), "--out", str(tmp_path / "a"), "--balance", "capped"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--max-per-world" in err and err.count("\n") == 0
    assert not (tmp_path / "a").exists()


def _answers(world: str, plans: list[str]) -> list[SupervisedPair]:
    return [pair.model_copy(update={"plan": plan}) for pair, plan in zip(_pairs(world, len(plans)), plans, strict=True)]


def test_max_per_skill_draws_at_most_n_answers_of_one_skill_from_each_world():
    """A teacher that waits in 30 of 36 decisions: the waits (any duration) are drawn down to the cap,
    the rarer skills are all kept, in the order given, each world on its own."""
    waiting = ["wait(1)", "wait(3)"] * 15 + ["pickup(onion)", "put_onion_in_pot()"] * 3
    kitchen, other = _answers("overcooked/forced_coordination", waiting), _answers("overcooked/cramped_room", ["wait(1)"] * 9)
    kept = select_pairs(kitchen + other, DataFilter(max_per_skill=8, seed=3))
    skills = Counter((p.world, (p.plan or "").split("(")[0]) for p in kept)
    assert skills == {
        ("overcooked/forced_coordination", "wait"): 8, ("overcooked/forced_coordination", "pickup"): 3,
        ("overcooked/forced_coordination", "put_onion_in_pot"): 3, ("overcooked/cramped_room", "wait"): 8,
    }  # fmt: skip
    assert [p.step for p in kept if p.world.endswith("coordination")] == sorted(
        p.step for p in kept if p.world.endswith("coordination")
    )
    assert kept == select_pairs(kitchen + other, DataFilter(max_per_skill=8, seed=3))
    assert kept != select_pairs(kitchen + other, DataFilter(max_per_skill=8, seed=4))
    # before the world's cap: the cap then counts what the skill cap left
    assert world_counts(select_pairs(kitchen, DataFilter(max_per_skill=8, max_per_world=12))) == {
        "overcooked/forced_coordination": 12
    }


def test_without_a_skill_cap_the_selection_is_what_it_was():
    """The data hash of an existing training set (and so its --resume) does not change."""
    plans = _answers("overcooked/forced_coordination", ["wait(1)"] * 20 + ["pickup(onion)"] * 5)
    assert select_pairs(plans + FEW, DataFilter(max_per_world=10)) == plans[:10] + FEW
    assert len(select_pairs(plans, DataFilter(max_per_skill=25))) == 25


def test_max_per_answer_caps_each_plan_with_its_arguments_so_the_rarer_object_is_taught_as_often():
    """A supplier that took onions 20 times and dishes 4: a cap per skill (pickup) would keep the
    onions' majority; a cap per answer keeps as many of each object as the cap allows, and waits of
    other durations are answers of their own."""
    plans = ["pickup(onion)"] * 20 + ["pickup(dish)"] * 4 + ["wait(3)"] * 10 + ["wait(1)"] * 2
    kitchen = _answers("overcooked/forced_coordination", plans)
    kept = select_pairs(kitchen, DataFilter(max_per_answer=4, seed=1))
    assert Counter(p.plan for p in kept) == {"pickup(onion)": 4, "pickup(dish)": 4, "wait(3)": 4, "wait(1)": 2}
    assert [p.step for p in kept] == sorted(p.step for p in kept)
    assert kept != select_pairs(kitchen, DataFilter(max_per_answer=4, seed=2))
    by_skill = select_pairs(kitchen, DataFilter(max_per_answer=4, max_per_skill=6, seed=1))
    assert Counter((p.plan or "").split("(")[0] for p in by_skill) == {"pickup": 6, "wait": 6}
    assert len(select_pairs(kitchen, DataFilter(max_per_answer=len(plans)))) == len(plans)


def test_skills_teaches_only_the_named_skills_answers_whatever_their_arguments():
    plans = ["pickup(onion)", "place_obj_on_counter()", "wait(3)", "pickup(dish)", "put_onion_in_pot()"] * 3
    kitchen = _answers("overcooked/forced_coordination", plans)
    kept = select_pairs(kitchen, DataFilter(skills=("pickup", "wait")))
    assert Counter(p.plan for p in kept) == {"pickup(onion)": 3, "pickup(dish)": 3, "wait(3)": 3}
    assert select_pairs(kitchen, DataFilter(skills=None)) == kitchen


def test_the_skills_flag_takes_names_without_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exc:
        main(["finetune", str(tmp_path), "--out", str(tmp_path / "out"), "--skills", "pickup(onion)"])
    assert exc.value.code == 2
    assert "skill names without arguments" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
