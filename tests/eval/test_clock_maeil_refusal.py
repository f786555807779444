"""MAEIL plays only under the turn clock, and eval refuses a clocked agent under it in one line, before
any run folder: with a topology, and with repair alone (which plays MAEIL's individual topology), which
before slipped past the check and played the team turn by turn while recording zero clock steps."""

from __future__ import annotations

import pytest

from proagent.cli import main
from proagent.eval.config import ConfigError, EvalConfig
from proagent.eval.world import resolve

CUBE_TEAM = {
    "name": "t", "domain": "cube", "layouts": ["easy_2a"], "partners": ["proagent"], "seats": [0], "episodes": 1,
    "horizon": 10, "cache": False, "agents": [{"kind": "proagent", "llm": "scripted", "clock": "tokens:40"}],
}  # fmt: skip


@pytest.mark.parametrize("maeil", [{"topologies": ["individual"]}, {"repair": "on"}], ids=["topology", "repair"])
def test_a_clocked_agent_under_maeil_is_refused_naming_what_plays(world, maeil: dict) -> None:
    with pytest.raises(ConfigError) as refused:
        resolve(EvalConfig.model_validate({**CUBE_TEAM, **maeil}), world)
    message = str(refused.value)
    assert "--clock tokens:40" in message and "only under --clock turns" in message and "\n" not in message
    assert "without a topology and repair each agent of the team plays on this clock" in message


def test_the_same_team_without_maeil_is_accepted(world) -> None:
    resolve(EvalConfig.model_validate(CUBE_TEAM), world)


def test_the_cli_refuses_it_with_exit_2_and_no_run_folder(tmp_path, capsys) -> None:
    argv = ["eval", "--domain", "cube", "--layouts", "easy_2a", "--partners", "proagent", "--llm", "scripted"]
    argv += ["--clock", "tokens:40", "--repair", "on", "--episodes", "1", "--runs-dir", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "only under --clock turns" in err
    assert not any(tmp_path.iterdir())
