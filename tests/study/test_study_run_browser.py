"""`proagent study run` opens the experimenter page in a browser, as `human` and `replay` open
theirs, unless `--no-browser` says to print the address only."""

from __future__ import annotations

import time
import webbrowser

import pytest

from proagent.cli import main
from tests.study.study_run_helpers import short_study


@pytest.mark.parametrize("flags", [[], ["--no-browser"]])
def test_study_run_opens_the_experimenter_page_unless_told_not_to(flags, tmp_path, monkeypatch, capsys) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)

    def stop(_: float) -> None:
        raise KeyboardInterrupt  # the experimenter's Ctrl+C, once the page is served

    monkeypatch.setattr(time, "sleep", stop)
    assert main(["study", "run", str(short_study(tmp_path / "study")), "--port", "0", *flags]) == 0
    (page,) = [line.split()[2] for line in capsys.readouterr().out.splitlines() if line.startswith("experimenter page:")]
    assert opened == ([] if flags else [page])
