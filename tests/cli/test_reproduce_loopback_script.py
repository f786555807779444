"""scripts/reproduce_loopback.py: a user's ``--runs-dir`` receives the run folders and keeps them
(the kept page names them), and the page's Regenerate lines quote each flag once. `proagent
reproduce` is replaced by a stand-in that makes a run folder and writes a page the way the tables
do (its Regenerate line is the command line it got), so the test reads only what the script does."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.domains.scripts_loader import load_script

TARGET = "interdependence-table1"  # no LLM plays it: the script serves the double but passes no --llm


def last_value(argv: list[str], flag: str) -> str:
    """``flag``'s value as argparse reads it: the last one given wins."""
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag][-1]


@pytest.fixture(scope="module")
def loaded() -> object:
    return load_script("reproduce_loopback")


@pytest.fixture
def script(loaded: object, monkeypatch: pytest.MonkeyPatch) -> tuple[object, list[list[str]]]:
    module = loaded
    calls: list[list[str]] = []

    def reproduce(argv: list[str]) -> int:
        calls.append(argv)
        run = Path(last_value(argv, "--runs-dir")) / "20260101-000000-table"
        run.mkdir(parents=True)
        (run / "episodes.jsonl").write_text("", encoding="utf-8")
        page = Path(last_value(argv, "--out")).with_suffix(".md")
        page.parent.mkdir(parents=True, exist_ok=True)
        line = shlex.join(["proagent", *argv])
        page.write_text(f"# Table\n\nRegenerate: `{line}` (run folder `{run.name}`).\n", encoding="utf-8")
        page.with_name(f"{page.stem}_score.png").write_bytes(b"png")  # a figure, named after the page as tables do
        return 0

    monkeypatch.setattr(module, "proagent_main", reproduce)
    return module, calls


def test_a_given_runs_dir_receives_the_run_folders_and_keeps_them(script, tmp_path: Path) -> None:
    module, calls = script
    runs = tmp_path / "my-runs"
    assert module.main([TARGET, "--episodes", "1", "--runs-dir", str(runs), "--results", str(tmp_path / "page")]) == 0
    (argv,) = calls
    assert argv.count("--runs-dir") == 1 and last_value(argv, "--runs-dir") == str(runs)
    assert (runs / "20260101-000000-table" / "episodes.jsonl").is_file()  # still there after the script ended


def test_without_runs_dir_the_run_folders_go_to_a_temporary_folder_removed_at_exit(script, tmp_path: Path) -> None:
    module, calls = script
    assert module.main([TARGET, "--episodes", "1"]) == 0
    (argv,) = calls
    assert argv.count("--runs-dir") == 1 and not Path(last_value(argv, "--runs-dir")).exists()


def test_the_pages_regenerate_lines_are_the_command_run_with_each_flag_once(script, tmp_path: Path) -> None:
    module, _ = script
    runs = str(tmp_path / "runs")
    given = [TARGET, "--episodes", "1", "--progress", "off", "--runs-dir", runs, "--results", str(tmp_path)]
    assert module.main(given) == 0
    page = (tmp_path / f"{TARGET}.md").read_text(encoding="utf-8")
    assert f"Regenerate: `PYTHONPATH=. {shlex.join(['python', 'scripts/reproduce_loopback.py', *given])}`" in page
    inner = shlex.split(page.split("\nRegenerate: `")[1].split("`")[0])
    flags = [a for a in inner if a.startswith("--")]
    assert len(flags) == len(set(flags)), inner


def test_results_names_the_page_and_its_figures_by_the_target_and_the_model(script, tmp_path: Path) -> None:
    """docs/results/README.md's rule: ``<target>_loopback`` for the double's page, the bare target where no
    LLM plays; the figures carry the page's name."""
    module, _ = script
    for target, name in (("yokai-table2", "yokai-table2_loopback"), (TARGET, TARGET)):
        results, runs = tmp_path / target / "results", tmp_path / target / "runs"
        assert module.main([target, "--episodes", "1", "--runs-dir", str(runs), "--results", str(results)]) == 0
        assert sorted(p.name for p in results.iterdir()) == [f"{name}.md", f"{name}_score.png"]


def test_a_kept_page_of_a_target_a_model_plays_names_this_scripts_command(script, tmp_path: Path) -> None:
    """The inner `proagent reproduce` line names the double's address, which only this script
    serves: a page kept with ``--out`` says how to make it again with this script, under its model line."""
    module, _ = script
    given = ["emcoop-macrafter", "--episodes", "1", "--out", str(tmp_path / "page"), "--runs-dir", str(tmp_path / "r")]
    assert module.main(given) == 0
    lines = (tmp_path / "page.md").read_text(encoding="utf-8").splitlines()
    outer = f"Regenerate this page: `PYTHONPATH=. {shlex.join(['python', 'scripts/reproduce_loopback.py', *given])}`"
    assert lines[0] == "# Table" and lines[2].startswith(outer)  # the stand-in's page has no model line: under the title
    assert sum(line.startswith("Regenerate: `proagent reproduce") for line in lines) == 1


def test_a_page_kept_and_written_to_results_is_headed_once_each(script, tmp_path: Path) -> None:
    """With ``--out`` and ``--results`` both, each page is headed from the table's own page: the kept
    page names this script's command once under the title, the results page once in its banner (not
    the kept page's line again below it)."""
    module, _ = script
    given = ["emcoop-macrafter", "--out", str(tmp_path / "page"), "--runs-dir", str(tmp_path / "r"), "--results", str(tmp_path / "results")]
    assert module.main(given) == 0
    outer = f"`PYTHONPATH=. {shlex.join(['python', 'scripts/reproduce_loopback.py', *given])}`"
    kept = (tmp_path / "page.md").read_text(encoding="utf-8")
    results = (tmp_path / "results" / "emcoop-macrafter_loopback.md").read_text(encoding="utf-8")
    assert kept.count(outer) == 1 and f"Regenerate this page: {outer}" in kept
    assert results.count(outer) == 1 and f"> Regenerate: {outer}" in results and "Regenerate this page" not in results
    assert results.startswith("# Table (made with the loopback test double") and "> **Not an LLM result.**" in results
