"""Training never writes into partners/ unless asked: the default run leaves every shipped file
byte-identical; ``--ship [NAME]`` writes where partners are looked up by name and, like any
folder holding a checkpoint, is only replaced with ``--overwrite``; the run's progress lines come
through the `proagent train` heartbeat."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from test_rl_worlds import TINY_CUBE

from proagent.paths import PARTNERS_DIR
from proagent.training import checkpoint, cli, run_folder, train_run


def _tree_digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` -> the sha256 of its bytes."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def quiet(monkeypatch, tmp_path):
    monkeypatch.setattr(train_run, "_say", lambda line: None)
    monkeypatch.setattr(run_folder, "TRAIN_RUNS", tmp_path / "runs")


def test_a_train_with_default_arguments_leaves_partners_byte_identical(quiet, tmp_path):
    before = _tree_digest(PARTNERS_DIR)
    assert cli.main(TINY_CUBE) == 0
    assert _tree_digest(PARTNERS_DIR) == before
    (run,) = (tmp_path / "runs").iterdir()
    assert checkpoint.load_manifest(run).layout == "easy_2a"


def test_ship_writes_where_partners_are_found_and_replaces_one_only_with_overwrite(quiet, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_folder, "SHIP_ROOT", tmp_path / "partners")
    assert cli.main([*TINY_CUBE, "--ship"]) == 0
    shipped = tmp_path / "partners" / "cube" / "easy_2a" / "sp"
    first = (shipped / checkpoint.MANIFEST_FILE).read_bytes()
    assert cli.main([*TINY_CUBE, "--ship", "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "holds a checkpoint: add --overwrite" in err, err
    assert (shipped / checkpoint.MANIFEST_FILE).read_bytes() == first
    assert cli.main([*TINY_CUBE, "--ship", "sp_s1", "--seed", "1"]) == 0  # a named seed beside it
    assert checkpoint.load_manifest(shipped.parent / "sp_s1").seed == 1
    assert cli.main([*TINY_CUBE, "--ship", "--seed", "1", "--overwrite"]) == 0
    assert checkpoint.load_manifest(shipped).seed == 1
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--ship", "--out", "somewhere"], "--ship writes to partners/"),
        (["--ship", "../sp"], "a partner name is letters"),
    ],
)
def test_ship_with_another_folder_or_a_path_is_refused_in_one_line(extra, message, quiet, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_folder, "SHIP_ROOT", tmp_path / "partners")
    assert cli.main([*TINY_CUBE, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.count("\n") == 0, err
    assert list(tmp_path.iterdir()) == []


def test_proagent_train_writes_its_progress_lines_through_the_heartbeat(tmp_path, monkeypatch, capsys):
    """Captured (not a terminal), `proagent train` prints a line per call with the steps done, then
    the saved checkpoint; ``--progress-seconds`` sets when a silent stretch gets a line of its own."""
    from proagent.cli import main

    monkeypatch.setattr(run_folder, "TRAIN_RUNS", tmp_path / "runs")
    assert main(["train", *TINY_CUBE, "--progress-seconds", "600"]) == 0
    out = capsys.readouterr().out.splitlines()
    done = [int(line.split("/")[0].replace(",", "")) for line in out if "/256 steps" in line]
    assert done == [64, 128, 192, 256], out
    assert out[-1].startswith("saved sp (") and not any(line.startswith("still working") for line in out)
