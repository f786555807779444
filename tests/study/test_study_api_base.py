"""`proagent study run` refuses an ``--api-base`` that carries a credential or a query, in one line
and before serving (as `play` does), instead of serving and failing at round 1 with an HTTP 500."""

from __future__ import annotations

import pytest

from proagent.cli import main
from tests.study.study_run_helpers import short_study


@pytest.mark.parametrize("url", ["http://user:secret-pass@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api_key=sk-secret123"])
def test_study_run_refuses_a_credential_in_the_api_base_before_serving(url, tmp_path, capsys) -> None:
    folder = short_study(tmp_path / "study")
    code = main(["study", "run", str(folder), "--llm", "openai/x", "--api-base", url, "--port", "0"])
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--api-base" in err and "environment" in err, err
    assert "secret" not in err and "experimenter page" not in captured.out
    assert not (folder / "participants").exists()
