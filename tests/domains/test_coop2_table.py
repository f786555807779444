"""COOP²'s grid table: the grid it plays (structures x team sizes, repair both, COOP²'s sizes by
default), and the page's rows: repair arms paired by world, the column mapping, the double's label."""

from __future__ import annotations

from pathlib import Path

from proagent.eval.reproduce import checked_config
from proagent.tables import coop2


def test_the_default_grids_are_coop2s() -> None:
    cube = coop2.Settings(world="cube", out=Path("x"))
    assert coop2.layouts(cube) == {"coop2:42@3": 3} and coop2.horizon(cube) == 50
    crafter = coop2.Settings(world="macrafter", out=Path("x"), episodes=2)
    assert coop2.layouts(crafter) == {"emcoop:42@3": 3, "emcoop:43@3": 3, "emcoop:42@6": 6, "emcoop:43@6": 6}
    assert coop2.horizon(crafter) == 200 and coop2.plan(crafter).episodes == 4 * 3 * 2
    data = coop2.grid(crafter)
    assert data["repair"] == "both" and data["topologies"] == ["individual", "centralized", "broadcast_chain"]
    assert checked_config(data, "coop2").grid_episodes() == coop2.plan(crafter).episodes


def _row(structure: str, repair: str, scenario: str, score: float) -> dict:
    return {
        "structure": structure, "repair": repair, "team": 3, "scenario": scenario, "score": score, "coop_success": 0.5,
        "score_per_agent": score / 3, "messages": 3.0, "interruptions": 1.0, "plan_coherence": 0.5,
        "llm_calls_team": 10.0, "llm_calls_agent": 10 / 3, "tokens_team": 100.0, "tokens_per_score": 100 / score,
        "repairs_triggered": 1.0 if repair == "on" else 0.0, "repair_calls": 2.0, "repair_revisions": 0.0,
        "estimator_precision": None, "estimator_recall": 0.5,
    }  # fmt: skip


def test_the_table_pairs_repair_on_with_off_by_world() -> None:
    rows = [
        _row("centralized", "off", "a", 1.0), _row("centralized", "off", "b", 3.0),
        _row("centralized", "on", "a", 2.0), _row("centralized", "on", "b", 5.0),
    ]  # fmt: skip
    lines = coop2.table(rows).splitlines()
    assert (
        len(lines) == 4 and lines[2].startswith("| 3 | centralized | off | 2 |") and lines[2].endswith("| baseline |")
    )
    assert "| 1.50 ± 0.50 (n=2)" in lines[3]  # on − off per world: 1 and 2
    assert "n/a (n=0)" in lines[3]  # no precision where no failure was predicted


def test_the_page_names_coop2s_columns_and_labels_a_double(tmp_path: Path) -> None:
    settings = coop2.Settings(world="cube", out=tmp_path / "p", llm="python:tests.support.loopback:loopback_model")
    text = coop2.page(settings, tmp_path / "run", [_row("individual", "off", "a", 1.0)], [])
    assert "score: S_team" in text and "tokens / score: S_tokens_per_score" in text and "interruptions: P_int" in text
    assert "est. precision: none in COOP²" in text
    assert "does not read repair guidance" in text and "not a language model" in text
    assert "Smaller than COOP²'s grid" not in text  # COOP²'s own sizes


def test_a_page_at_smaller_sizes_says_where_it_is_not_coop2s_grid() -> None:
    crafter = coop2.Settings(world="macrafter", out=Path("x"), teams=[3], horizon=20)
    assert coop2.smaller_than_coop2(crafter) == (
        "Smaller than COOP²'s grid: steps per episode 20 (COOP²'s: 200); team sizes 3 (COOP²'s: 3 and 6). "
    )
    cube = coop2.Settings(world="cube", out=Path("x"), structures=["individual"])
    assert coop2.smaller_than_coop2(cube) == (
        "Smaller than COOP²'s grid: structures individual (COOP²'s: individual, centralized, broadcast_chain). "
    )
