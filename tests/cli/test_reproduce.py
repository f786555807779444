"""`proagent reproduce`: the targets are listed, a dry run counts and prices a target without running
it, bad input is one line and exit 2 before any run folder, and the cheap targets run end to end on
the loopback test double, writing our numbers (read from the run's records) beside the paper's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.eval.records import read_records
from proagent.eval.reproduce import load_registry, token_prices
from proagent.eval.stats import metric_stat
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch its price list

REQUIRED = (
    "proagent-table1", "proagent-fig2", "proagent-planner-ablation", "proagent-verificator-ablation", "overcooked-v2-table2",
    "interdependence-table1", "emcoop-topologies", "emcoop-macrafter", "yokai-table2",
)  # fmt: skip


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as srv:
        yield srv


def test_list_shows_every_target_with_its_paper(capsys: pytest.CaptureFixture) -> None:
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    registry = load_registry()
    assert set(REQUIRED) <= {t.name for t in registry.targets}
    for target in registry.targets:
        assert f"{target.name}\n  paper: {registry.papers[target.paper].title} ({target.table})" in out


def test_dry_run_counts_and_prices_table1_for_gpt_4o_mini(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    argv = [
        "reproduce",
        "proagent-table1",
        "--dry-run",
        "--llm",
        "openai/gpt-4o-mini",
        "--runs-dir",
        str(tmp_path / "runs"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    measured = load_registry().get("proagent-table1").measured
    episodes = 5 * 5 * 2 * 5  # ProAgent's: partners x layouts x seats x episodes (the LLM episodes)
    prompt_price, completion_price = token_prices("openai/gpt-4o-mini")
    cost = episodes * (measured.prompt_tokens * prompt_price + measured.completion_tokens * completion_price)
    assert out.startswith(f"proagent-table1: {6 * episodes} episodes (nothing run)")  # and the 5 RL methods' games
    assert f"expected LLM calls: {measured.llm_calls * episodes:,.0f};" in out
    assert f"expected cost with openai/gpt-4o-mini: ${cost:,.2f}" in out and "loopback test double" in out
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("model", ["embedded", "embedded:/models/x.gguf", "scripted", "python:pkg.mod:factory"])
def test_a_local_model_has_no_price_and_its_estimate_never_imports_litellm(model: str) -> None:
    """litellm's import (seconds) is paid only where a price can exist: an API model's."""
    code = (
        "import sys; from proagent.eval.reproduce import token_prices; "
        f"assert token_prices({model!r}) is None; assert 'litellm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize(
    ("argv", "measured_steps", "steps"),
    [
        (["proagent-table1", "--horizon", "100"], 400, 100),  # an evaluation target: its config's horizon
        (["emcoop-macrafter", "--horizon", "20"], 60, 20),  # a table target: its settings' horizon
    ],
)
def test_a_dry_run_scales_the_measured_figures_to_the_horizon_played(
    argv: list[str], measured_steps: int, steps: int, capsys: pytest.CaptureFixture
) -> None:
    name = argv[0]
    assert main(["reproduce", *argv, "--dry-run"]) == 0
    short = capsys.readouterr().out
    assert main(["reproduce", name, "--dry-run"]) == 0
    full = capsys.readouterr().out
    measured = load_registry().get(name).measured
    assert measured.horizon == measured_steps

    def calls(out: str) -> float:
        return float(out.split("expected LLM calls: ")[1].split(";")[0].replace(",", ""))

    assert calls(short) == pytest.approx(calls(full) * steps / measured_steps, rel=0.01)
    assert f"scaled from the measured {measured_steps} to {steps} steps per episode" in short
    assert "scaled" not in full


def test_dry_run_counts_the_grid_the_flags_leave(capsys: pytest.CaptureFixture) -> None:
    assert (
        main(
            ["reproduce", "proagent-verificator-ablation", "--dry-run", "--layouts", "cramped_room", "--episodes", "2"]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("proagent-verificator-ablation: 12 episodes")  # 3 variants x 2 seats x 2


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["reproduce", "no-such-table"], "unknown target 'no-such-table'"),
        (["reproduce"], "give a target name"),
        (["reproduce", "proagent-table1", "--episodes", "0"], "--episodes"),
        (["reproduce", "proagent-table1", "--layouts", "nowhere"], "nowhere"),
        (["reproduce", "proagent-planner-ablation", "--prompt", "plan_only"], "--prompt"),
        (["reproduce", "interdependence-table1", "--llm", "openai/gpt-4o-mini"], "takes no --llm"),
        (["reproduce", "yokai-table2", "--prompt", "proagent"], "takes no --prompt"),
        (["reproduce", "yokai-table2", "--set", "no_such=1"], "no_such"),
        (["reproduce", "proagent-table1", "--set", "agents=sp"], "--set is for table targets"),
        (["reproduce", "proagent-table1", "--agents", "hsp"], "--agents: proagent-table1 has no agent hsp"),
        (["reproduce", "proagent-table1", "--resume", "no/such/run"], "--resume: no run folder at no/such/run"),
    ],
)
def test_bad_input_is_one_line_exit_2_before_any_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture, argv: list, said: str
) -> None:
    assert _exit_code([*argv, "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1 and not (tmp_path / "runs").exists()


def _exit_code(argv: list[str]) -> int | str | None:
    """The command's status, whether it returns it or the parser exits with it (a bad flag value)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def _run(server: FakeChatServer, tmp_path: Path, target: str, *flags: str) -> tuple[list, str, Path]:
    argv = [
        "reproduce",
        target,
        *flags,
        "--out",
        str(tmp_path / "table"),
        "--runs-dir",
        str(tmp_path / "runs"),
        "--progress",
        "off",
    ]
    assert main([*argv, *loopback_args(server.url)]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    return read_records(run / "episodes.jsonl"), (tmp_path / "table.md").read_text(), run


def test_table1_at_fewer_steps_and_partners_shows_ours_alone_and_says_why(server: FakeChatServer, tmp_path: Path) -> None:
    """A 20-step run with two of the five partners is not the paper's setting: the page has no paper
    column, no difference, no z, and one line says what differs."""
    flags = ("--layouts", "cramped_room", "--agents", "proagent,sp", "--partners", "pbt,sp", "--episodes", "1")
    records, text, run = _run(server, tmp_path, "proagent-table1", *flags, "--horizon", "20", "--max-cost", "0.5")
    assert sorted((r.agent, r.partner, r.seat) for r in records) == [
        (a, p, s) for a in ("proagent", "sp") for p in ("pbt", "sp") for s in (0, 1)
    ]
    config = json.loads((run / "config.json").read_text())["config"]
    assert config["max_cost_usd"] == 0.5 and config["agents"][0]["prompt"] == "proagent"  # the target's agent kept
    for agent in ("proagent", "sp"):
        for seat in (0, 1):
            mine = [r for r in records if r.agent == agent and r.seat == seat and r.partner != agent]  # no self-play
            assert f"| {agent} | cramped_room | {seat} | {metric_stat(mine, 'score').text(1)} |\n" in text
    (why,) = [line for line in text.splitlines() if line.startswith("The paper's column is withheld")]
    assert "steps per episode 20 vs 400" in why and "partners pbt, sp vs sp, pbt, fcp, mep, cole" in why
    assert "| paper |" not in text and "197.3" not in text and "z (SEs)" not in text and "Where we stand" not in text
    assert "As the paper lays it out" not in text and not list(tmp_path.glob("*_vs_paper.png"))
    assert "proagent reproduce proagent-table1 --layouts cramped_room" in text and "tests.support.loopback" in text


def test_fig2_plays_the_human_proxy_and_copies_no_number_from_the_figure(server: FakeChatServer, tmp_path: Path) -> None:
    flags = ("--layouts", "cramped_room", "--agents", "proagent,sp", "--episodes", "1", "--horizon", "20")
    records, text, _ = _run(server, tmp_path, "proagent-fig2", *flags)
    assert sorted((r.agent, r.partner, r.seat) for r in records) == [
        (a, "bc", s) for a in ("proagent", "sp") for s in (0, 1)
    ]
    for agent in ("proagent", "sp"):
        for seat in (0, 1):
            ours = metric_stat([r for r in records if r.agent == agent and r.seat == seat], "score")
            assert f"| {agent} | cramped_room | {seat} | {ours.text(1)} |\n" in text
    assert "none copied: the paper reports Fig. 2 as bars" in text and "| paper |" not in text
    assert "![ours alone](table_scores.png)" in text
    assert (tmp_path / "table_scores.png").stat().st_size > 0


def test_planner_ablation_at_fewer_steps_withholds_the_papers_column(server: FakeChatServer, tmp_path: Path) -> None:
    records, text, _ = _run(
        server, tmp_path, "proagent-planner-ablation", "--episodes", "1", "--horizon", "20", "--seats", "0"
    )
    assert sorted(r.agent for r in records) == ["analysis_intention_belief", "analysis_only", "plan_only"]
    for variant in ("analysis_intention_belief", "analysis_only", "plan_only"):
        ours = metric_stat([r for r in records if r.agent == variant], "score")
        assert f"| {variant} | cramped_room | {ours.text(1)} |\n" in text
    (why,) = [line for line in text.splitlines() if line.startswith("The paper's column is withheld")]
    assert "steps per episode 20 vs 400; seats 0 vs 0, 1" in why and "204" not in text
    compared = text.split("\n## The variants compared\n", 1)[1]  # the ablation's own table, under the page's
    rows = {line.split(" | ")[0].strip("| "): line for line in compared.splitlines() if line.startswith("| ")}
    assert "baseline" in rows["analysis_intention_belief"]
    assert "baseline" not in rows["plan_only"] and "Δ score vs analysis_intention_belief" in compared


def test_resume_finishes_the_run_and_rewrites_the_table(server: FakeChatServer, tmp_path: Path) -> None:
    flags = ("--episodes", "1", "--horizon", "20", "--seats", "0")
    _, _, run = _run(server, tmp_path, "proagent-planner-ablation", *flags)
    argv = [
        "reproduce",
        "proagent-planner-ablation",
        "--resume",
        str(run),
        "--episodes",
        "2",
        "--out",
        str(tmp_path / "table"),
        "--progress",
        "off",
    ]
    assert main([*argv, "--no-cache"]) == 0  # the model and its server come from the run's config
    records = read_records(run / "episodes.jsonl")
    assert len(records) == 3 * 2 and [p.name for p in (tmp_path / "runs").iterdir()] == [run.name]
    ours = metric_stat([r for r in records if r.agent == "plan_only"], "score")
    assert ours.n == 2 and f"| plan_only | cramped_room | {ours.text(1)} |\n" in (tmp_path / "table.md").read_text()


def test_resume_refuses_another_targets_run(
    server: FakeChatServer, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    _, _, run = _run(server, tmp_path, "proagent-planner-ablation", "--episodes", "1", "--horizon", "5", "--seats", "0")
    capsys.readouterr()
    assert main(["reproduce", "proagent-verificator-ablation", "--resume", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a run of 'ablation-planner-modules'" in err and len(err.splitlines()) == 1
    assert len(read_records(run / "episodes.jsonl")) == 3  # untouched


@pytest.mark.slow  # the file's full setting: 12 episodes of 100 steps (about 30 s)
def test_verificator_ablation_at_the_papers_setting_compares_and_shows_variants_the_paper_lacks(
    server: FakeChatServer, tmp_path: Path
) -> None:
    """The file's own setting (100 steps, both seats, both layouts): the paper's column is there."""
    records, text, _ = _run(server, tmp_path, "proagent-verificator-ablation", "--episodes", "1")
    off = metric_stat([r for r in records if r.agent == "verificator_off"], "skill_success_rate")
    assert f"| verificator_off | {off.text(2)} | 0.20 | {off.mean - 0.2:.2f} |" in text and "withheld" not in text
    assert "| verificator_on | " in text and text.split("| verificator_on | ")[1].split("\n")[0].endswith("| – | – |")


def test_a_table_target_runs_in_process_with_the_flags_it_takes(tmp_path: Path) -> None:
    out, runs = tmp_path / "yokai", tmp_path / "runs"
    argv = [
        "reproduce",
        "yokai-table2",
        "--episodes",
        "1",
        "--out",
        str(out),
        "--runs-dir",
        str(runs),
        "--progress",
        "off",
    ]
    assert main(argv) == 0
    (table,) = runs.iterdir()
    (run,) = (p for p in table.iterdir() if p.is_dir())  # the table's one grid
    records = read_records(run / "episodes.jsonl")
    assert len(records) == 3 * 3 * 2 and {r.episode for r in records} == {0}  # 3 agents x 3 partners x 2 seats, 1 game
    text = out.with_suffix(".md").read_text()
    assert f"run folder `{run.name}`" in text and "| H | real |" in text  # ours from the run, the paper's beside them


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"implementation": "ablate"}, "needs its config, config_file or module"),
        ({"paper": "nobody"}, "unknown papers: nobody"),
        ({"script": "scripts/yokai_table.py"}, "script"),
    ],
)
def test_a_malformed_registry_is_refused_when_read(change: dict, said: str) -> None:
    from pydantic import ValidationError

    from proagent.eval.reproduce import Registry

    registry = load_registry()
    target = registry.get("yokai-table2").model_dump() | change
    with pytest.raises(ValidationError, match=said):
        Registry.model_validate({"papers": registry.model_dump()["papers"], "targets": [target]})


def test_a_resumed_page_names_the_commands_that_made_it_and_no_run_folder(server: FakeChatServer, tmp_path: Path) -> None:
    _, _, run = _run(server, tmp_path, "proagent-planner-ablation", "--episodes", "1", "--horizon", "5", "--seats", "0")
    argv = ["reproduce", "proagent-planner-ablation", "--resume", str(run), "--episodes", "2", "--out", str(tmp_path / "t")]
    assert main([*argv, "--progress", "off", "--no-cache"]) == 0
    line = next(x for x in (tmp_path / "t.md").read_text().splitlines() if "Regenerate" in x)
    started, resumed = line.split(", then ")
    assert "proagent reproduce proagent-planner-ablation" in started and "--horizon 5 --seats 0" in started
    assert "--episodes 2" in resumed and "--resume <that run folder>" in resumed
    assert str(run) not in line
    # a resume that finds nothing left to play is no step of making the page: the line stays as it was
    again = ["reproduce", "proagent-planner-ablation", "--resume", str(run), "--out", str(tmp_path / "t"), "--progress", "off"]
    assert main(again) == 0
    assert next(x for x in (tmp_path / "t.md").read_text().splitlines() if "Regenerate" in x) == line


def test_a_table_target_run_from_the_checkout_leaves_docs_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Without --out the page goes into the table's run folder, not into a docs/ folder where it is run."""
    monkeypatch.chdir(tmp_path)
    shipped = tmp_path / "docs" / "results"
    shipped.mkdir(parents=True)
    (shipped / "yokai-table2.md").write_text("shipped page\n")
    argv = ["reproduce", "yokai-table2", "--episodes", "1", "--set", "agents=careful,random", "--progress", "off"]
    assert main(argv) == 0
    assert [p.name for p in (tmp_path / "docs").rglob("*")] == ["results", "yokai-table2.md"]
    assert (shipped / "yokai-table2.md").read_text() == "shipped page\n"
    (table,) = (tmp_path / "runs").iterdir()
    page = table / "yokai-table2.md"
    assert page.is_file() and str(page.relative_to(tmp_path)) in capsys.readouterr().err.replace("\n", "")
    assert (table / "yokai-table2.csv").is_file()  # its files beside it


def test_help_says_where_the_page_goes(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "TARGET.md for a table target; nothing is written into docs/ unless this flag names it" in said
