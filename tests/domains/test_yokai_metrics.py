"""The Yōkai paper's per-game metrics (R as eq. 4 and eq. 1, win, EE, SEE, WEE, LEN, hints) from
hand-built event sequences, their table-level means (WEE over the games that ended early only),
and eq. 4 from the events against the env's own reward in played games."""

from __future__ import annotations

import asyncio

import pytest

from proagent.domains import get_domain
from proagent.domains.yokai.metrics import METRIC_NAMES, WEE, game_metrics
from proagent.domains.yokai.table import Outcome, TableEvent
from proagent.eval.records import EvalRecord
from proagent.eval.stats import metric_stat
from proagent.runner.episode import run_episode
from proagent.runner.summary import summary_of

DOMAIN = get_domain("yokai")


def _outcome(score: int, won: bool, correct: int, wrong: int, clusters: int) -> Outcome:
    placed = correct + wrong
    return Outcome(score, won, correct, wrong, revealed=0, face_down=4 - placed, clusters=clusters, colours=3)


def _game(kinds: list[str], outcome: Outcome | None) -> list[TableEvent]:
    events = [TableEvent(step, step // 4 % 2, kind) for step, kind in enumerate(kinds)]
    if outcome is not None:
        events.append(TableEvent(len(kinds), 0, "game_over", outcome=outcome))
    return events


TURN = ["observe", "observe", "move", "reveal"]


def test_an_early_win_pays_eq_1_and_counts_for_ee_see_and_wee() -> None:
    # one turn with a hint placed correctly, then END: 5 * 3 face-down + 1 correct = 16
    events = _game(["observe", "observe", "move", "place", "end"], _outcome(16, True, 1, 0, 3))
    assert list(DOMAIN.episode_metrics(events)) == list(METRIC_NAMES)  # the report's column order
    assert DOMAIN.episode_metrics(events) == {
        "reward": 16.0, "game_score": 16.0, "win": 1.0, "early_end": 1.0, "early_win": 1.0, WEE: 1.0,
        "length": 5.0, "hints_used": 1.0, "hints_correct": 1.0, "hints_wrong": 0.0,
    }  # fmt: skip


def test_an_early_loss_pays_the_eq_4_penalty_with_d_a() -> None:
    # END at the first step: eq. 1 would pay 20 (four face-down hints); lost with one colour joined
    m = DOMAIN.episode_metrics(_game(["end"], _outcome(20, False, 0, 0, 1)))
    assert m["reward"] == -1 - (3 - 1) - 0 == -3 and m["game_score"] == 20
    assert (m["win"], m["early_end"], m["early_win"], m[WEE], m["length"]) == (0, 1, 0, 0, 1)


def test_a_game_that_ran_out_of_hints_is_not_an_early_end() -> None:
    kinds = [*TURN[:3], "place"] * 4
    lost = DOMAIN.episode_metrics(_game(kinds, _outcome(2, False, 3, 1, 2)))
    assert lost["reward"] == 0 - (3 - 2) - 1 == -2 and lost["game_score"] == 2
    assert (lost["early_end"], lost["early_win"], lost["length"], lost["hints_used"], lost["hints_wrong"]) == (0, 0, 16, 4, 1)
    assert WEE not in lost and set(lost) == set(METRIC_NAMES) - {WEE}
    won = DOMAIN.episode_metrics(_game(kinds, _outcome(4, True, 4, 0, 3)))
    assert won["reward"] == won["game_score"] == 4 and won["win"] == 1 and won["early_win"] == 0 and WEE not in won


def test_a_game_without_its_end_scores_zero_with_its_length() -> None:
    m = DOMAIN.episode_metrics(_game(TURN * 2, None))
    assert m["length"] == 8 and m["reward"] == m["game_score"] == m["win"] == m["early_end"] == 0 and WEE not in m
    assert game_metrics([]).length == 0


def _record(metrics: dict[str, float], episode: int) -> EvalRecord:
    return EvalRecord(
        domain="yokai", layout="9c_2p", partner="careful", seat=0, episode=episode, seed=episode,
        team=["careful", "careful"], score=metrics["reward"], shaped_return=[0.0, 0.0], wall_time_s=0.0,
        steps=int(metrics["length"]), agent="careful", agent_kind="careful", domain_metrics=metrics,
    )  # fmt: skip


def test_wee_is_the_win_rate_of_the_games_that_ended_early_and_undefined_without_one() -> None:
    games = [
        _game(["end"], _outcome(20, False, 0, 0, 1)),  # early loss
        _game([*TURN, "end"], _outcome(18, True, 0, 0, 3)),  # early win
        _game(["end"], _outcome(20, True, 0, 0, 3)),  # early win
        _game([*TURN[:3], "place"] * 4, _outcome(4, True, 4, 0, 3)),  # ran out, won
    ]
    records = [_record(DOMAIN.episode_metrics(g), i) for i, g in enumerate(games)]
    wee, see, ee = (metric_stat(records, m) for m in (WEE, "early_win", "early_end"))
    assert (wee.n, wee.mean) == (3, pytest.approx(2 / 3)) and (see.n, see.mean, ee.mean) == (4, 0.5, 0.75)
    assert metric_stat(records, "win").mean == 0.75 and metric_stat(records, "length").mean == pytest.approx(23 / 4)
    assert metric_stat(records[3:], WEE).n == 0  # no early end: no WEE, not 0
    summary = summary_of(records, DOMAIN.useful_events)
    assert summary[f"{WEE}_mean"] == pytest.approx(2 / 3) and f"{WEE}_mean" not in summary_of(records[3:], ())


@pytest.mark.parametrize(("partner", "seed"), [("random", 3), ("careful", 0)])
def test_eq_4_from_the_events_is_the_reward_the_env_paid(partner: str, seed: int) -> None:
    env = DOMAIN.make_env("9c_2p", DOMAIN.default_horizon("9c_2p"))
    team = [DOMAIN.make_partner(partner, env) for _ in range(2)]
    record = asyncio.run(run_episode(env, DOMAIN, team, 0, seed, 0))
    m = record.domain_metrics
    assert record.score == m["reward"] and 0 < m["length"] <= env.config.max_steps
    assert (m["early_end"] == 1) == (sum(record.events["end"]) == 1) and (WEE in m) == (m["early_end"] == 1)
