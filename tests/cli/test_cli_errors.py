"""Bad input to `proagent play` gets a clear, actionable error before any episode starts."""

from __future__ import annotations

import pytest

from proagent.cli import main


@pytest.fixture
def runs(tmp_path):
    return ["--runs-dir", str(tmp_path / "runs"), "--no-gif", "--live", "off"]


def test_help_is_fast_and_lists_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "play" in out and "layouts" in out


def test_unknown_layout_names_the_classic_ones(capsys, runs):
    assert main(["play", "--layout", "kitchen_of_doom", *runs]) == 2
    err = capsys.readouterr().err
    assert "unknown layout 'kitchen_of_doom'" in err and "counter_circuit" in err


def test_bad_layout_file_reports_the_problem(tmp_path, capsys, runs):
    bad = tmp_path / "nopot.txt"
    bad.write_text("XXXXX\nO12 X\nXDXSX\n")
    assert main(["play", "--layout", str(bad), *runs]) == 2
    assert "no pot" in capsys.readouterr().err


def test_unknown_partner_lists_available(capsys, runs):
    assert main(["play", "--partner", "telepath", *runs]) == 2
    err = capsys.readouterr().err
    assert "telepath" in err and "greedy" in err


def test_unknown_prompt_set_lists_available(capsys, runs):
    assert main(["play", "--partner", "stay", "--prompt", "nope", *runs]) == 2
    err = capsys.readouterr().err
    assert "unknown prompt set 'nope'" in err and "proagent" in err


def test_missing_api_key_names_the_variable(monkeypatch, capsys, runs):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["play", "--partner", "stay", "--llm", "openai/gpt-4o-mini", *runs]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_layouts_command_prints_a_layout(capsys):
    assert main(["layouts", "forced_coordination"]) == 0
    out = capsys.readouterr().out
    assert "X X X P X\nO   X ^ P\nO ^ X   X\nD   X   X\nX X X S X" in out and "overcooked forced_coordination: 2 agents" in out
