"""Tables printed without a terminal (a log, CI, a pipe; here pytest's capture) keep every cell
whole: rich would squeeze them into 80 columns and cut cells to ``1…``; Markdown is printed instead."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from proagent.cli import main
from proagent.cli.partners_cmd import COLUMNS, checkpoint_rows
from proagent.eval.records import EvalRecord
from proagent.eval.runner import EvalOutcome
from proagent.eval.session import finish_run
from proagent.tables_out import markdown_rows

LONG_AGENT = "proagent_with_a_rather_long_variant_name"
LONG_PARTNER = "human_proxy_counter_passer_scratch"


@pytest.fixture(autouse=True)
def _no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich takes FORCE_COLOR / TTY_COMPATIBLE=1 for a terminal; these tests are about having none."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)


def record(agent: str, seat: int, episode: int, score: float) -> EvalRecord:
    return EvalRecord(
        episode=episode, seed=episode, layout="counter_circuit", partner=LONG_PARTNER, seat=seat, score=score,
        soups=int(score // 20), steps=400, wall_time_s=1.0, shaped_return=[0.0, 0.0], agent=agent,
        agent_kind="proagent", llm_calls=1234 + episode, prompt_tokens=987654, int_total=12, int_constructive=9,
        int_non_constructive=3, int_initiated=[5, 7], int_accepted=[4, 6],
    )  # fmt: skip


def eval_run(folder: Path) -> Path:
    """A run folder with records only (no config.json: `proagent report` titles it by its name)."""
    folder.mkdir()
    scores = [120.0, 260.0, 300.0]  # mean 226.7 ± 54.6 (se over 3 episodes)
    agents = (LONG_AGENT, "greedy")  # greedy scores 1 more each episode
    lines = [
        record(agent, 0, i, s + k).model_dump_json() for k, agent in enumerate(agents) for i, s in enumerate(scores)
    ]
    (folder / "episodes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_partners_prints_every_cell_whole(capsys):
    assert main(["partners"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    rows = checkpoint_rows("overcooked")
    assert any(LONG_PARTNER in row for row in rows), "the shipped zoo has a long partner name"
    assert markdown_rows(COLUMNS, rows) in out  # the same rows as `proagent partners --markdown`


def test_report_prints_the_markdown_of_table_md(tmp_path, capsys):
    run = eval_run(tmp_path / "20260101-000000-eval")
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    table_md = (run / "table.md").read_text(encoding="utf-8")
    by_partner = table_md[table_md.index("| layout / seat") : table_md.index("\n## ")]
    assert by_partner.strip() in out  # the score table of table.md, cell for cell
    assert "| counter_circuit / P0 | 226.7 ± 54.6 (n=3) | **227.7 ± 54.6 (n=3)** |" in out
    assert f"| {LONG_AGENT} / {LONG_PARTNER} | 226.7 ± 54.6 (n=3) |" in out and "agent calls" in out and "team calls" in out


def test_eval_finish_prints_whole_cells_without_a_terminal(tmp_path, capsys):
    run = eval_run(tmp_path / "20260101-000000-eval")
    handle = SimpleNamespace(folder=SimpleNamespace(path=run))
    finish_run(handle, EvalOutcome(records=[], played=6), Console())  # the end of `proagent eval`
    out = capsys.readouterr().out
    assert "…" not in out
    assert f"{LONG_AGENT} / {LONG_PARTNER}" in out and "227.7 ± 54.6" in out and "6 episode(s) played now" in out


def test_analyze_prints_every_cell_whole(tmp_path, capsys):
    run = tmp_path / "20260101-000000-eval"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"command": "eval"}), encoding="utf-8")
    agent = LONG_AGENT * 3  # longer than the 150 columns `analyze` allows a rich table
    lines = [record(agent, 1, i, 100.0 + i).model_dump_json() for i in range(2)]
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["analyze", str(run), "--no-write"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    assert "| agent / partner / layout / seat | n | score | Int |" in out
    assert f"| {agent} / {LONG_PARTNER} / counter_circuit / p1 | 2 | 100.5 | 12.0 | 9.0 | 3.0 | 75.0 |" in out


def test_every_world_lists_what_it_ships(capsys) -> None:
    """`proagent partners --domain cube` lists the scripted and trained teammates and the checkpoints."""
    from proagent.cli import main

    assert main(["partners", "--domain", "cube"]) == 0
    out = capsys.readouterr().out
    assert "cube partners: ippo_independent, ippo_shared, lazy, pusher" in out
    assert {row[:2] for row in checkpoint_rows("cube")} >= {("easy_2a", "ippo_shared"), ("hard_4a", "ippo_shared")}
    assert main(["partners", "--domain", "no_such_world"]) == 2
