"""Every table target of `proagent reproduce` runs end to end in this process on the loopback test
double at tiny settings (its page written from the run's records, the model named as the double),
and a dry run of a table target counts its episodes and prices them from its measured figures."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.eval.reproduce import load_registry, token_prices
from proagent.llm.types import Grounding
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer
from tests.support.responders.macrafter import macrafter_answer
from tests.support.responders.overcooked import overcooked_answer
from tests.support.responders.yokai import yokai_answer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch its price list

NO_LLM = "interdependence-table1"  # the one table target with no LLM agent (it takes no --llm)
Responder = Callable[[Grounding | None], str]
TINY: dict[str, tuple[Responder, list[str], list[str]]] = {
    # target: (the double's responder, tiny flags, what the page must show)
    "overcooked-v2-table2": (
        overcooked_answer,
        ["--layouts", "grounded_coord_simple", "--set", "partners=sp", "--set", "rl_episodes=0", "--horizon", "5"],
        ["| grounded_coord_simple | recipe_greedy | ", "None played (`rl_episodes=0`)"],
    ),
    "interdependence-table1": (
        overcooked_answer,
        ["--set", "partners=greedy", "--set", "seats=0", "--horizon", "10"],
        ["| greedy | p0 | 1 | ", "The paper's column is withheld", "steps per episode 10 vs 400; passer seats 0 vs 0, 1",
         "![interdependence](page_int.png)"],
    ),
    "emcoop-topologies": (
        cube_answer,
        ["--set", "teams=easy", "--set", "topologies=individual,centralized", "--horizon", "5"],
        ["| easy (2 agents) | individual | 1 | ", "| easy (2 agents) | centralized | 1 | "],
    ),
    "emcoop-macrafter": (
        macrafter_answer,
        ["--set", "difficulties=easy", "--set", "topologies=individual,centralized", "--horizon", "5"],
        ["| easy | individual | off | 1 | ", "| easy | centralized | on | 1 | "],
    ),
    "coop2-cube": (
        cube_answer,
        ["--set", "structures=centralized", "--horizon", "5"],
        ["| 3 | centralized | off | 1 | ", "| 3 | centralized | on | 1 | "],
    ),
    "coop2-macrafter": (
        macrafter_answer,
        ["--set", "teams=3", "--set", "structures=individual,broadcast_chain", "--horizon", "5"],
        ["| 3 | individual | off | 1 | ", "| 3 | broadcast_chain | on | 1 | ", "repair on − off"],
    ),
    "yokai-table2": (yokai_answer, ["--set", "agents=careful,proagent"], ["| LLM | proagent | ", "| H | real |"]),
    "realtime": (
        lambda g: cube_answer(g) if g is not None and any(s.startswith("push") for s in g.skills) else overcooked_answer(g),
        ["--set", "grids=classic,cube", "--set", "budgets=100", "--set", "classic_partners=sp", "--set", "cube_partners=pusher",
         "--horizon", "5"],
        ["| Overcooked | counter_circuit | sp | turns | 1 | ", "| CUBE | easy_2a | pusher | tokens-100 | 1 | ",
         "## Beside the published findings"],
    ),
}


def test_every_table_target_has_a_tiny_run_here() -> None:
    assert {t.name for t in load_registry().targets if t.implementation == "table"} == set(TINY)


@pytest.mark.parametrize("target", sorted(TINY))
def test_a_table_target_runs_on_the_double(target: str, tmp_path: Path) -> None:
    responder, flags, shown = TINY[target]
    out, runs = tmp_path / "page", tmp_path / "runs"
    argv = ["reproduce", target, *flags, "--episodes", "1", "--out", str(out), "--runs-dir", str(runs)]
    with FakeChatServer(delay_s=0.0, responder=responder) as server:
        double = [] if target == NO_LLM else loopback_args(server.url)
        assert main([*argv, "--progress", "off", *double]) == 0
    text = out.with_suffix(".md").read_text()
    assert all(line in text for line in shown), text
    assert f"proagent reproduce {target} " in text  # the command that regenerates it
    (table,) = runs.iterdir()  # the table's one run folder
    grids = [p.name for p in table.iterdir() if p.is_dir()]
    assert grids and all(f"`{name}`" in text for name in grids)  # ours come from these runs
    if target != NO_LLM:  # said at the top, before the first section or table: no number is read without it
        head = re.split(r"\n[#|]", text, maxsplit=1)[0]
        # on a line of its own, where every page names its model (the docs check reads that line)
        said = r"^Model: .*a test double \(scripted answers\), not a language model"
        assert re.search(said, head, re.MULTILINE), head
    else:  # 10 steps, one seat, one partner: not the paper's setting, so nothing of the paper's beside ours
        assert "| COLE |" not in text and "## The paper's Table 1" not in text


def test_the_interdependence_page_compares_only_at_its_setting(tmp_path: Path) -> None:
    from proagent.tables.interdependence import Settings, layout_partners, not_the_papers

    every = layout_partners()
    assert not_the_papers(Settings(out=tmp_path / "p"), every) == []  # the target's own: the paper's column shown
    short = not_the_papers(Settings(out=tmp_path / "p", horizon=100), every)
    assert short == ["steps per episode 100 vs 400"]
    assert not_the_papers(Settings(out=tmp_path / "p"), every[:1])[0].startswith(f"partners {every[0]} vs all")


def test_a_dry_run_prices_a_table_target(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = ["reproduce", "emcoop-topologies", "--dry-run", "--llm", "openai/gpt-4o-mini", "--runs-dir", str(tmp_path)]
    assert main([*argv, "--set", "teams=easy,medium", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    measured = load_registry().get("emcoop-topologies").measured
    assert measured is not None
    episodes = 2 * 2 * 4  # teams x scenarios x topologies, one episode each, every seat ProAgent
    prompt_price, completion_price = token_prices("openai/gpt-4o-mini")
    cost = episodes * (measured.prompt_tokens * prompt_price + measured.completion_tokens * completion_price)
    assert out.startswith(f"emcoop-topologies: {episodes} episodes (nothing run)")
    assert f"expected LLM calls: {measured.llm_calls * episodes:,.0f};" in out
    assert f"expected cost with openai/gpt-4o-mini: ${cost:,.2f}" in out and not list(tmp_path.iterdir())


def test_a_table_without_an_llm_says_so(capsys: pytest.CaptureFixture) -> None:
    assert main(["reproduce", "interdependence-table1", "--dry-run", "--set", "partners=greedy,sp"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "interdependence-table1: 40 episodes (nothing run)",  # 2 partners x 2 passer seats x 10 episodes
        "LLM calls and tokens: none (no LLM agent plays in this target)",
    ]


def test_the_interdependence_table_plays_only_partners_of_its_layout() -> None:
    from proagent.tables.interdependence import layout_partners

    partners = layout_partners()
    assert {"greedy", "fcp", "onion_passer"} <= set(partners)  # scripted, and trained for counter_circuit
    assert "fcp_s1" not in partners and "proagent" not in partners  # a seed trained for other layouts; the LLM
