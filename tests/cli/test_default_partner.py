"""`play` without `--partner` picks a teammate that can play the kitchen, and records it; a heuristic
chef that only knows the three-onion soup is refused on a V2 kitchen in one line."""

from __future__ import annotations

import json

import pytest

from proagent.cli import main
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args


@pytest.fixture
def server():
    with FakeChatServer(delay_s=0.0) as srv:  # wait(1) in every world: the partner is under test
        yield srv


def _play(layout: str, server: FakeChatServer, tmp_path, *extra: str) -> int:
    argv = ["play", "--layout", layout, "--horizon", "4", "--live", "off", "--no-gif", "--runs-dir", str(tmp_path)]
    return main([*argv, *extra, *loopback_args(server.url)])


@pytest.mark.parametrize(
    ("layout", "partner"),
    [("demo_cook_simple", "sp"), ("test_time_wide", "sp_s2"), ("cramped_room", "greedy"), ("easy_2a", "pusher")],
)
def test_play_without_a_partner_plays_the_worlds_default_and_records_it(server, tmp_path, layout, partner):
    assert _play(layout, server, tmp_path) == 0
    (run,) = tmp_path.glob(f"*-play-{layout}-{partner}")
    assert json.loads((run / "config.json").read_text())["partner"] == partner
    (episode,) = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert episode["team"][1] == partner


def test_greedy_on_a_v2_kitchen_is_one_line_and_no_run_folder(server, tmp_path, capsys):
    assert _play("demo_cook_simple", server, tmp_path, "--partner", "greedy") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'greedy' cooks only the classic three-onion soup" in err, err
    assert not list(tmp_path.iterdir())
