"""Bad inputs are refused up front: exit 2, one line naming the value, no run folder, no model call."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.paths import PROMPTS_DIR

OVERCOOKED_PROMPTS = PROMPTS_DIR / "overcooked"


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--horizon", "0"), ("--horizon", "-5"), ("--episodes", "0"), ("--episodes", "-2"), ("--seed", "-1"),
     ("--memory-k", "-1"), ("--max-replans", "-1"), ("--horizon", "2.5")],
)  # fmt: skip
def test_play_refuses_bad_numbers_in_one_line_before_any_run_folder(tmp_path, capsys, flag, value):
    code, err = _run(["play", flag, value, "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and f"argument {flag}" in err and repr(value) in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("command", "flag", "value"), [("human", "--horizon", "0"), ("human", "--fps", "0"), ("human", "--port", "70000"), ("eval", "--episodes", "0"), ("eval", "--seed", "-1")])
def test_human_and_eval_refuse_bad_numbers_too(capsys, command, flag, value):
    code, err = _run([command, flag, value], capsys)
    assert code == 2 and err.count("\n") == 1 and f"argument {flag}" in err


KITCHENS = {
    "three.txt": (b"XXPXX\nO1 3O\nX2  X\nXDXSX\n", "3 player starts"),
    "binary.txt": (b"XX\x00\xffPXX\nO1 2O\n", "not a text file"),
    "digits.txt": ("XXPXX\nO\u0661 2O\nX   X\nXDXSX\n".encode(), "unknown character"),
    "grid.toml": (b"grid = 5\n", "needs a 'grid' string"),
    "broken.toml": (b'grid = ["XXPXX"\n', "not valid TOML"),
    "recipes.toml": (b'grid = "XXPXX\\nO1 2O\\nX   X\\nXDXSX"\nrecipes = "onion"\n', "'recipes' must be"),
}


@pytest.mark.parametrize("name", sorted(KITCHENS))
def test_broken_kitchen_files_get_one_line(tmp_path, capsys, name):
    data, expected = KITCHENS[name]
    kitchen = tmp_path / name
    kitchen.write_bytes(data)
    code, err = _run(["play", "--layout", str(kitchen), "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and expected in err and err.count("\n") == 1, err
    assert not (tmp_path / "runs").exists()


def test_a_directory_is_not_reported_as_missing(tmp_path, capsys):
    code, err = _run(["play", "--layout", str(tmp_path), "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and "is a directory" in err


@pytest.fixture
def broken_set():
    """A prompt set in prompts/ (where --prompt looks) whose explainer is broken; removed after."""
    name = f"test_broken_{uuid.uuid4().hex[:8]}"
    folder = OVERCOOKED_PROMPTS / name
    shutil.copytree(OVERCOOKED_PROMPTS / "proagent", folder)

    def breaking(template: str, text: str) -> str:
        (folder / template).write_text(text)
        return name

    yield breaking
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(
    ("template", "text", "expected"),
    [
        ("explainer.j2", "You chose {{ skill }} {% if %}", "explainer.j2"),
        ("explainer.j2", "You chose {{ skil }}", "'skil' is undefined"),
        ("belief.j2", "{{ predicted.nope.deeper }}", "belief.j2"),
        ("planner_user.j2", "{% for m in memory %}{{ m.nothing_here }}{% endfor %}", "nothing_here"),
    ],
)
def test_a_broken_template_fails_before_the_run_folder_and_any_call(tmp_path, capsys, broken_set, template, text, expected):
    name = broken_set(template, text)
    argv = ["play", "--prompt", name, "--llm", "openai/never-called", "--api-base", "http://127.0.0.1:9/v1"]
    code, err = _run([*argv, "--runs-dir", str(tmp_path / "runs"), "--no-cache"], capsys)
    assert code == 2 and expected in err and name in err, err
    assert err.strip().count("\n") == 0
    assert not (tmp_path / "runs").exists()


def test_eval_checks_templates_before_its_run_folder(tmp_path, capsys, broken_set):
    name = broken_set("explainer.j2", "{{ undefined_thing }}")
    argv = ["eval", "--agents", "proagent", "--prompt", name, "--llm", "openai/never-called", "--api-base", "http://127.0.0.1:9/v1"]
    code, err = _run([*argv, "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and "undefined_thing" in err
    assert not (tmp_path / "runs").exists() or not any(Path(tmp_path / "runs").iterdir())


@pytest.mark.parametrize("url", ["http://user:secret-pass@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api_key=sk-secret123"])
def test_an_api_base_with_credentials_is_refused_without_echoing_them(tmp_path, capsys, url):
    argv = ["play", "--llm", "openai/x", "--api-base", url, "--runs-dir", str(tmp_path / "runs"), "--no-cache"]
    code, err = _run(argv, capsys)
    assert code == 2 and "environment" in err and "secret" not in err
    assert not (tmp_path / "runs").exists()


def test_a_wait_with_an_unreadable_number_is_a_parse_error_not_wait_1():
    from proagent.domains.overcooked.skills import SkillBook
    from proagent.world.types import SkillParseError

    book = SkillBook(("onion", "dish", "soup"))
    with pytest.raises(SkillParseError, match="cannot read the argument '2.5'"):
        book.parse("wait(2.5)")
    assert str(book.parse("wait(3)")) == "wait(3)" and str(book.parse("wait")) == "wait(1)"


@pytest.mark.parametrize("name", ["../../..", "a/b", "..", ".hidden", "x" * 121, "a b"])
@pytest.mark.parametrize("command", ["play", "eval", "human"])
def test_a_run_name_cannot_leave_the_runs_folder(command: str, name: str, tmp_path, capsys) -> None:
    """``--name`` is one plain part of a folder name: anything else exits 2 in one line, no folder."""
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--name", name, "--runs-dir", str(runs)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--name" in err and "run name" in err
    assert not runs.exists() and list(tmp_path.iterdir()) == []


def test_run_folders_refuse_names_that_are_paths_and_defaults_are_cleaned(tmp_path) -> None:
    from proagent.runner.run_folder import RunFolder, run_name_from

    with pytest.raises(ValueError, match="run name"):
        RunFolder.create("../escape", root=tmp_path)
    assert run_name_from("play-my kitchen/x-greedy+sp") == "play-my_kitchen_x-greedy+sp"
    assert RunFolder.create(run_name_from("../x"), root=tmp_path).path.parent == tmp_path
