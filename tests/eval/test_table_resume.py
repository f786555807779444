"""A table target plays all its grids in one run folder, and one ``--resume FOLDER`` finishes the
whole table: grids a stop cut short are finished (their finished episodes not replayed), grids it
never began are played, and the page is the one an uninterrupted run writes. A resume keeps the
table's settings (``--episodes`` may grow) and refuses a folder of another target, or one that is no
table run."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.tables.table_run import TABLE_FILE, TableRunError, resumed_settings
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.macrafter import macrafter_answer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

TARGET = "emcoop-macrafter"  # two grids: feedback off, then on
TINY = ["--set", "difficulties=easy", "--set", "topologies=individual,centralized", "--horizon", "4", "--episodes", "1"]




def table_folder(runs: Path) -> Path:
    (folder,) = runs.iterdir()  # one folder for the whole table
    return folder


def ours(page: Path) -> str:
    """The page's own numbers: everything but the line that names run folders and how it was made,
    and the page's own name (its figures are named after it)."""
    keep = [line for line in page.read_text().splitlines() if "run folder" not in line and "Regenerate" not in line]
    return "\n".join(keep).replace(page.stem, "PAGE")


@dataclass
class Whole:
    folder: Path  # the table's run folder
    page: Path  # the page of the whole run
    requests: int  # the requests the whole run made
    server: FakeChatServer  # the double it talks to (the table's config names its address)


@dataclass
class Stopped(Whole):  # ``folder``: a copy of the whole run's, cut back
    served_before: int  # the requests the server had answered when this copy was handed out


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Whole]:
    """A whole tiny table, played once for the module (each test cuts back a copy of it)."""
    tmp_path = tmp_path_factory.mktemp("whole")
    runs, page = tmp_path / "runs", tmp_path / "full"
    with FakeChatServer(responder=macrafter_answer) as server:
        argv = ["reproduce", TARGET, *TINY, "--out", str(page), "--runs-dir", str(runs), "--progress", "off"]
        assert main([*argv, "--no-cache", *loopback_args(server.url)]) == 0
        yield Whole(table_folder(runs), page.with_suffix(".md"), len(server.requests), server)


@pytest.fixture
def stopped(whole: Whole, tmp_path: Path) -> Stopped:
    """A copy of the whole table, cut back to what a stop in its first grid leaves: that grid with
    its first episode only, the second grid never begun."""
    folder = tmp_path / "runs" / whole.folder.name
    shutil.copytree(whole.folder, folder)
    cut_back(folder)
    return Stopped(folder, whole.page, whole.requests, whole.server, len(whole.server.requests))


def cut_back(folder: Path) -> None:
    """The first grid keeps its first episode; the second grid is gone from the folder and the record."""
    record = json.loads((folder / TABLE_FILE).read_text())
    assert list(record["grids"]) == ["macrafter-plain", "macrafter-feedback"]
    first, second = (folder / name for name in record["grids"].values())
    episodes = (first / "episodes.jsonl").read_text().splitlines(keepends=True)
    assert len(episodes) == 2  # individual and centralized
    (first / "episodes.jsonl").write_text(episodes[0])
    shutil.rmtree(second)
    del record["grids"]["macrafter-feedback"]
    (folder / TABLE_FILE).write_text(json.dumps(record))


def test_one_resume_finishes_every_grid_of_the_table(stopped: Stopped, tmp_path: Path) -> None:
    folder, server = stopped.folder, stopped.server
    first = folder / json.loads((folder / TABLE_FILE).read_text())["grids"]["macrafter-plain"]
    kept = (first / "episodes.jsonl").read_text()
    page = tmp_path / "resumed"
    assert main(["reproduce", TARGET, "--resume", str(folder), "--out", str(page), "--progress", "off"]) == 0
    assert 0 < len(server.requests) - stopped.served_before < stopped.requests  # the finished episode was not played again
    assert (first / "episodes.jsonl").read_text().startswith(kept)  # and its record was kept as it was
    grids = json.loads((folder / TABLE_FILE).read_text())["grids"]
    assert list(grids) == ["macrafter-plain", "macrafter-feedback"]
    assert len((first / "episodes.jsonl").read_text().splitlines()) == 2
    assert (folder / grids["macrafter-feedback"] / "episodes.jsonl").read_text()  # played from nothing
    text = page.with_suffix(".md").read_text()
    assert ours(page.with_suffix(".md")) == ours(stopped.page)
    assert f"proagent reproduce {TARGET} --set difficulties=easy" in text  # the command that made it, not --resume
    assert "--resume" not in text.split("`")[1]


def test_a_resume_grows_every_grid_to_more_episodes_keeping_the_finished_ones(tmp_path: Path) -> None:
    """realtime: --episodes counts episodes of each cell, so a resume plays only the ones each cell lacks."""
    runs, tiny = tmp_path / "runs", ["--set", "grids=classic", "--set", "classic_partners=cole", "--horizon", "4"]
    argv = ["reproduce", "realtime", "--llm", "scripted", *tiny, "--episodes", "1", "--runs-dir", str(runs)]
    assert main([*argv, "--out", str(tmp_path / "one"), "--progress", "off"]) == 0
    folder = table_folder(runs)
    (grid,) = json.loads((folder / TABLE_FILE).read_text())["grids"].values()
    kept = (folder / grid / "episodes.jsonl").read_text()
    assert len(kept.splitlines()) == 4  # turns and three token budgets
    page = tmp_path / "two"
    assert main(["reproduce", "realtime", "--resume", str(folder), "--episodes", "2", "--out", str(page), "--progress", "off"]) == 0
    grown = (folder / grid / "episodes.jsonl").read_text()
    assert grown.startswith(kept) and len(grown.splitlines()) == 8
    record = json.loads((folder / TABLE_FILE).read_text())
    assert record["settings"]["episodes"] == 2 and record["command"].count("--episodes") == 1
    (regenerate,) = re.findall(r"Regenerate: `([^`]*)`", page.with_suffix(".md").read_text())
    assert regenerate.endswith("--episodes 2") and "--resume" not in regenerate  # the page's command makes the page
    record["settings"]["episodes"] = 3  # as if grown to 3 already: fewer is refused
    (folder / TABLE_FILE).write_text(json.dumps(record))
    with pytest.raises(TableRunError, match="--episodes can grow, not shrink below 3"):
        resumed_settings(folder, "realtime", {"episodes": 2})


def test_a_resume_refuses_more_episodes_where_they_count_worlds(stopped: Stopped, capsys: pytest.CaptureFixture) -> None:
    """emcoop-macrafter: --episodes is worlds per difficulty, other layouts, not more episodes of the same cells."""
    folder = stopped.folder
    before = sorted((p.name, p.stat().st_size) for p in folder.rglob("*") if p.name != ".lock")
    assert main(["reproduce", TARGET, "--resume", str(folder), "--episodes", "2", "--progress", "off"]) == 2
    err = capsys.readouterr().err
    assert "more episodes change the grid macrafter-plain's layouts" in err and "start a new run" in err
    assert sorted((p.name, p.stat().st_size) for p in folder.rglob("*") if p.name != ".lock") == before


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--set", "difficulties=hard"], "these cannot change: --set"),
    ],
)
def test_a_resume_keeps_the_tables_settings(
    stopped: Stopped, flags: list[str], says: str, capsys: pytest.CaptureFixture
) -> None:
    folder = stopped.folder
    before = sorted(p.name for p in folder.rglob("*"))
    assert main(["reproduce", TARGET, "--resume", str(folder), *flags, "--progress", "off"]) == 2
    assert says in capsys.readouterr().err
    assert sorted(p.name for p in folder.rglob("*")) == before  # nothing played, nothing written


def test_a_resume_refuses_another_targets_table_and_a_plain_run(stopped: Stopped, capsys: pytest.CaptureFixture) -> None:
    folder = stopped.folder
    assert main(["reproduce", "emcoop-topologies", "--resume", str(folder)]) == 2
    assert f"is a run of {TARGET!r}, not of this target ('emcoop-topologies')" in capsys.readouterr().err
    grid = next(p for p in folder.iterdir() if p.is_dir())
    assert main(["reproduce", TARGET, "--resume", str(grid)]) == 2
    assert f"is not a table run (it has no {TABLE_FILE})" in capsys.readouterr().err


def test_a_grid_with_an_unknown_name_is_refused_before_the_tables_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    runs = tmp_path / "runs"
    argv = ["reproduce", "interdependence-table1", "--set", "partners=greedy,no_such_partner", "--runs-dir", str(runs)]
    assert main([*argv, "--out", str(tmp_path / "page"), "--progress", "off"]) == 2
    err = capsys.readouterr().err
    assert "no_such_partner" in err and len(err.splitlines()) == 1
    assert not runs.exists() or not list(runs.iterdir())
