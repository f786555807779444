"""`proagent play` and `proagent eval` on a world plugged in with ``--domain lamps_world:DOMAIN``,
in-process, through the real HTTP path (litellm -> the loopback server's lamps responder), without
a line of the world in `proagent/`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.cli import main
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args

DOMAIN_SPEC = "lamps_world:DOMAIN"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _llm(server: FakeChatServer, tmp_path: Path) -> list[str]:
    return ["--domain", DOMAIN_SPEC, *loopback_args(server.url), "--runs-dir", str(tmp_path)]


def test_play_proagent_with_the_walker_writes_a_complete_run(lamps_server: FakeChatServer, tmp_path: Path) -> None:
    before = len(lamps_server.requests)
    argv = ["play", "--layout", "line", "--partner", "walker", "--seat", "1", "--horizon", "10", "--live", "off"]
    assert main([*argv, *_llm(lamps_server, tmp_path)]) == 0
    (run,) = tmp_path.glob("*-play-line-walker")
    config = json.loads((run / "config.json").read_text())
    assert config["domain"] == "lamps_world:DOMAIN" and config["layout"] == "line" and config["agent"]["prompt"] == "proagent"
    assert config["prompt_hashes"]["proagent/state.j2"]
    (episode,) = _lines(run / "episodes.jsonl")
    assert episode["steps"] == 10 and episode["team"] == ["walker", "proagent"] and episode["seat"] == 1
    assert episode["score"] > 0 and episode["domain_metrics"]["completions"] == episode["score"]
    assert episode["domain_metrics"]["lamps_lit"] >= 2 * episode["score"]
    assert episode["agent_stats"][0] == {} and episode["agent_stats"][1]["llm_calls"] == episode["llm_calls"] > 0
    assert (
        episode["llm_calls"] == len(lamps_server.requests) - before
        and episode["rejections"] == episode["fallbacks"] == 0
    )
    assert episode["events"]["light"][1] > 0 and episode["int_total"] is None
    trace = _lines(run / "trace.jsonl")
    assert len(trace) == 10 and trace[0]["layout"]["lamp_cells"] == [1, 5] and "final" in trace[-1]
    first = trace[0]["decision"]["attempts"][0]
    assert "You (player 1) are at cell 4" in first["messages"][1]["content"] and first["plan"] == "go_to_lamp(1)"
    assert json.loads(first["response"])["plan"] == "go_to_lamp(1)"  # the set asks for JSON by default
    assert trace[0]["actions"] == ["left", "right"] and "partner_skill" not in trace[0]  # a walker shows no skill
    summary = json.loads((run / "summary.json").read_text())
    assert summary["completions_mean"] > 0 and (run / "episode.gif").stat().st_size > 0


def test_play_refuses_unknown_layouts_and_partners_before_any_call(
    lamps_server: FakeChatServer, tmp_path: Path, capsys
) -> None:
    before = len(lamps_server.requests)
    assert main(["play", "--layout", "plane", "--partner", "walker", *_llm(lamps_server, tmp_path)]) == 2
    assert "unknown lamps layout 'plane'; layouts: line, line3" in capsys.readouterr().err
    assert main(["play", "--layout", "line", "--partner", "greedy", *_llm(lamps_server, tmp_path)]) == 2
    assert "unknown partner 'greedy'" in capsys.readouterr().err
    assert main(["play", "--layout", "line", "--partner", "walker", "--seat", "2", *_llm(lamps_server, tmp_path)]) == 2
    assert "line has seats 0..1" in capsys.readouterr().err
    assert len(lamps_server.requests) == before and not list(tmp_path.iterdir())


def _eval(server: FakeChatServer, tmp_path: Path, name: str, *grid: str) -> Path:
    argv = ["eval", "--name", name, *grid, "--episodes", "1", "--horizon", "6", "--progress", "off"]
    assert main([*argv, *_llm(server, tmp_path)]) == 0
    (run,) = tmp_path.glob(f"*-{name}")
    return run


def test_eval_crosses_proagent_and_the_walker_on_both_layouts(lamps_server: FakeChatServer, tmp_path: Path) -> None:
    grid = ["--agents", "proagent,walker", "--partners", "walker,proagent", "--layouts", "line,line3", "--seats", "0,1"]
    run = _eval(lamps_server, tmp_path, "cross", *grid)
    config = json.loads((run / "config.json").read_text())
    assert config["config"]["domain"] == DOMAIN_SPEC and config["layout_names"] == ["line", "line3"]
    records = _lines(run / "episodes.jsonl")
    assert len(records) == 2 * 2 * 2 * 2
    for r in records:
        size = 2 if r["layout"] == "line" else 3
        expected = [r["partner"]] * size
        expected[r["seat"]] = r["agent"]
        assert r["team"] == expected and len(r["agent_stats"]) == size and r["steps"] == 6
        assert set(r["domain_metrics"]) == {"completions", "lamps_lit"} and r["score"] > 0
        llm_seats = [stats.get("llm_calls", 0) > 0 for stats in r["agent_stats"]]
        assert llm_seats == [name == "proagent" for name in r["team"]]
    table = json.loads((run / "table.json").read_text())["by_partner"]
    assert [row["labels"] for row in table["rows"]] == [
        {"layout": "line", "seat": 0}, {"layout": "line", "seat": 1}, {"layout": "line3", "seat": 0}, {"layout": "line3", "seat": 1}
    ]  # fmt: skip
    assert {"agent": "walker", "partner": "proagent"} in table["columns"]
    assert "completions" in json.loads((run / "metrics.json").read_text())["metrics"]
    assert "| line3 / P1 |" in (run / "table.md").read_text()


def test_eval_proagent_as_its_own_partner_in_every_seat_of_three(lamps_server: FakeChatServer, tmp_path: Path) -> None:
    grid = ["--agents", "proagent", "--partners", "proagent", "--layouts", "line3", "--seats", "0,1,2"]
    run = _eval(lamps_server, tmp_path, "self3", *grid)
    records = _lines(run / "episodes.jsonl")
    assert sorted(r["seat"] for r in records) == [0, 1, 2]
    for r in records:
        assert r["team"] == ["proagent"] * 3 and r["score"] > 0
        assert r["partner"] == "proagent"  # eval records the grid's partner name (its episode key)
        assert all(stats["llm_calls"] > 0 and stats["fallbacks"] == 0 for stats in r["agent_stats"])
        assert r["intention_total"] > 0
        # three agents: each predicts both teammates' next skills, scored per teammate
        mates = sorted(str(s) for s in range(3) if s != r["seat"])
        assert sorted(r["intention_by_teammate"]) == mates, r["intention_by_teammate"]
        assert all(v["total"] > 0 for v in r["intention_by_teammate"].values())


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        (["--layouts", "line,plane"], "layouts[1]: unknown lamps layout 'plane'"),
        (["--layouts", "line,line3", "--seats", "0,2"], "seats[1]: seat 2 does not exist on line"),
        (["--layouts", "line", "--partners", "greedy"], "partners[0]: unknown partner 'greedy'"),
    ],
)
def test_eval_reports_bad_names_for_the_plugged_in_domain(
    lamps_server, tmp_path: Path, capsys, grid: list[str], message: str
) -> None:
    assert main(["eval", "--agents", "walker", *grid, *_llm(lamps_server, tmp_path)]) == 2
    assert message in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_layouts_and_partners_list_a_plugged_in_domain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layouts", "--domain", DOMAIN_SPEC]) == 0
    assert "lamps: line (default), line3" in capsys.readouterr().out
    assert main(["partners", "--domain", DOMAIN_SPEC]) == 0
    assert "lamps partners: stay, walker" in capsys.readouterr().out
    assert main(["partners", "--domain", "no_such_module:X"]) == 2
    assert "cannot import it" in capsys.readouterr().err
