"""The Yōkai paper's per-game metrics, read from one game's events (`TableEvent`).

The paper reports return R, Successful Early Ending (SEE), the early-ending rate (EE), its
calibration WEE = P(win | EE) and the game length LEN. Each is a function of what happened in the
game, so it is computed once here from the events a run records (the acting players' events and
the last ``game_over`` event with the finished board) and every table reads the same numbers:

- ``reward``: eq. 4, what the game pays and what a record's ``score`` is: eq. 1's score if every
  colour is one cluster, else ``-d_a - (|C| - c_a) - i_h``;
- ``game_score``: eq. 1 whatever the outcome (face-down hints 5, revealed 2, correct +1, wrong -1);
- ``early_end`` (EE): a player ended the game with the END action (eq. 4's ``d_a``), rather than
  the game ending on its last hint or at the runner's horizon;
- ``early_win`` (SEE): ended early *and* won;
- ``win_if_early`` (WEE): the win of a game that ended early. It is left out of a game that did not
  end early, so that its mean over a table's games (the tables skip a metric a game lacks) is
  P(win | EE) over the games that ended early, with n the number of such games, and a table where
  no game ended early has no value at all instead of a misleading 0;
- ``length`` (LEN): game steps, the END action counted (the paper's immediate end has LEN 1);
- ``hints_used``, ``hints_correct``, ``hints_wrong``: the placed hints, and whether the card under
  each has one of the hint's colours.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from proagent.domains.yokai.table import Outcome, TableEvent

WEE = "win_if_early"  # the one metric a game may lack (undefined unless it ended early)
# The paper's column order after R (the record's score): a console table showing only the first shows SEE.
METRIC_NAMES = (
    "early_win", "early_end", WEE, "length", "win", "reward", "game_score", "hints_used", "hints_correct",
    "hints_wrong",
)  # fmt: skip
# The paper's column names (Table 2) for the metrics above that it reports.
PAPER_COLUMNS = {"reward": "R", "early_win": "SEE", "early_end": "EE", WEE: "WEE", "length": "LEN"}


class GameMetrics(BaseModel):
    """One game's metrics (a bool where the paper counts a rate: its mean over games is the rate)."""

    model_config = ConfigDict(frozen=True)

    reward: float
    game_score: float
    win: bool
    early_end: bool
    length: int
    hints_correct: int
    hints_wrong: int

    def as_metrics(self) -> dict[str, float]:
        """The record's ``domain_metrics``, in `METRIC_NAMES` order: numbers only, WEE only for a
        game that ended early."""
        out = {
            "reward": self.reward,
            "game_score": self.game_score,
            "win": float(self.win),
            "early_end": float(self.early_end),
            "early_win": float(self.early_end and self.win),
            "length": float(self.length),
            "hints_used": float(self.hints_correct + self.hints_wrong),
            "hints_correct": float(self.hints_correct),
            "hints_wrong": float(self.hints_wrong),
        }
        if self.early_end:
            out[WEE] = float(self.win)
        return {name: out[name] for name in METRIC_NAMES if name in out}  # report columns follow this order


def eq4_reward(outcome: Outcome, ended_early: bool) -> float:
    """Eq. 4: the score if won, else minus the early end, the colours not in one cluster and the
    wrong hints (so a careful loss costs less than a guessed one)."""
    if outcome.won:
        return float(outcome.score)
    return float(-int(ended_early) - (outcome.colours - outcome.clusters) - outcome.wrong)


def game_metrics(events: Sequence[TableEvent]) -> GameMetrics:
    """The metrics of the game whose events are ``events`` (in order; the last ``game_over`` counts).
    A game with no ``game_over`` (cut off before its end) scores zero with its length so far."""
    played = [e for e in events if e.kind != "game_over"]
    early = any(e.kind == "end" for e in played)
    over = [e.outcome for e in events if e.kind == "game_over" and e.outcome is not None]
    if not over:
        return GameMetrics(
            reward=0.0, game_score=0.0, win=False, early_end=early, length=len(played), hints_correct=0, hints_wrong=0
        )
    o = over[-1]
    return GameMetrics(
        reward=eq4_reward(o, early),
        game_score=float(o.score),
        win=o.won,
        early_end=early,
        length=len(played),
        hints_correct=o.correct,
        hints_wrong=o.wrong,
    )
