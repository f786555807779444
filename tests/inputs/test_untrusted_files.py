"""Every TOML or JSON file that may come from elsewhere is read through one bounded reader: ten
kilobytes of nested brackets, bytes that are not UTF-8 or a file too large are one line naming the
file and exit 2, before any run folder (never a RecursionError traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proagent.cli import main
from proagent.untrusted import MAX_DEPTH, UntrustedFileError, loads_json, nesting_depth, read_json, read_toml

DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"  # valid TOML, 10 KB of brackets: tomllib would recurse 5,000 deep


def _refused(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], *words: str) -> None:
    runs = tmp_path / "runs"
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's one-line error
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and all(w in err for w in words), err
    assert not runs.exists()


def test_nesting_depth_counts_brackets_but_not_strings_or_comments() -> None:
    assert nesting_depth('a = [[1, "[[[["], {b = [2]}]  # [[[[[\n[t]\nx = \'[[[\'\ny = """\n[[[[\n"""') == 3
    assert nesting_depth('{"a": [1, "]]][[["]}') == 2


@pytest.mark.parametrize("reader", [read_toml, read_json])
def test_a_deep_file_is_one_line_naming_the_file(reader, tmp_path: Path) -> None:
    path = tmp_path / "deep.txt"
    path.write_text(DEEP if reader is read_toml else "[" * 10_000 + "]" * 10_000, encoding="utf-8")
    with pytest.raises(UntrustedFileError) as info:
        reader(path, "study file")
    message = str(info.value)
    assert message.startswith(f"study file {path}: ") and f"more than the {MAX_DEPTH} allowed" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"\xff\xfe a = 1", "not UTF-8 text (byte 0)"), (b"a = [", "not valid TOML"), (b"x" * 300, "larger than 200 bytes")],
)
def test_bad_bytes_bad_toml_and_size_are_one_line_naming_the_file(content: bytes, words: str, tmp_path: Path) -> None:
    path = tmp_path / "f.toml"
    path.write_bytes(content)
    with pytest.raises(UntrustedFileError) as info:
        read_toml(path, "config file", max_bytes=200)
    assert str(info.value).startswith(f"config file {path}: ") and words in str(info.value)


def test_a_missing_file_and_a_folder_are_one_line() -> None:
    with pytest.raises(UntrustedFileError, match="not found"):
        read_toml(Path("/no/such/file.toml"))
    with pytest.raises(UntrustedFileError, match="is a folder"):
        read_toml(Path("/"))
    with pytest.raises(UntrustedFileError, match="not valid JSON"):
        loads_json("{", "participant.json")


def test_a_deep_study_file_is_one_line(tmp_path: Path, capsys) -> None:
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.toml").write_text(DEEP, encoding="utf-8")
    _refused(["study", "report", str(study)], tmp_path, capsys, str(study / "study.toml"), "nested")


def test_a_deep_questionnaire_is_one_line(tmp_path: Path, capsys) -> None:
    from tests.study.study_run_helpers import SHORT_STUDY

    study = tmp_path / "study"
    study.mkdir()
    (study / "study.toml").write_text(SHORT_STUDY.replace('"default"', '"mine.toml"'), encoding="utf-8")
    (study / "mine.toml").write_text(DEEP, encoding="utf-8")
    _refused(["study", "report", str(study)], tmp_path, capsys, str(study / "mine.toml"), "nested")


def test_a_deep_eval_config_is_one_line_before_any_run_folder(tmp_path: Path, capsys) -> None:
    config = tmp_path / "grid.toml"
    config.write_text(DEEP, encoding="utf-8")
    _refused(["eval", str(config), "--runs-dir", str(tmp_path / "runs")], tmp_path, capsys, str(config), "nested")


def test_a_deep_sweep_file_is_one_line(tmp_path: Path, capsys) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(DEEP, encoding="utf-8")
    _refused(["train", "--sweep", str(sweep)], tmp_path, capsys, str(sweep), "nested")


def test_a_sweep_file_that_is_not_utf8_names_the_file(tmp_path: Path, capsys) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_bytes(b'methods = ["sp"]\n\xff\xfe\n')
    _refused(["train", "--sweep", str(sweep)], tmp_path, capsys, str(sweep), "not UTF-8")


def test_a_deep_kitchen_is_one_line_before_any_run_folder(tmp_path: Path, capsys) -> None:
    kitchen = tmp_path / "kitchen.toml"
    kitchen.write_text(DEEP, encoding="utf-8")
    argv = ["play", "--layout", str(kitchen), "--partner", "stay", "--runs-dir", str(tmp_path / "runs")]
    _refused(argv, tmp_path, capsys, str(kitchen), "nested")



def test_a_run_folder_or_participant_with_a_deep_json_file_is_a_one_line_refusal(tmp_path: Path) -> None:
    from proagent.runner.run_world import RunFolderError, world_of
    from proagent.study.progress import ParticipantError, load_participant

    deep = "[" * 10_000 + "]" * 10_000
    (tmp_path / "config.json").write_text(deep, encoding="utf-8")
    with pytest.raises(RunFolderError, match="nested"):
        world_of(tmp_path)
    person = tmp_path / "participants" / "P001"
    person.mkdir(parents=True)
    (person / "participant.json").write_text(deep, encoding="utf-8")
    with pytest.raises(ParticipantError, match="unreadable"):
        load_participant(tmp_path, "P001")
