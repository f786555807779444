"""Every "mean ± se" a person reads is written by `proagent.numbers.format_mean`: the same rounding,
its n beside it, and no ± where one sample gives no standard error (play's summary line, the
partners table, the training logs, the evaluation tables)."""

from __future__ import annotations

import re
from pathlib import Path

from proagent.cli import main
from proagent.cli.partners_cmd import COLUMNS, checkpoint_rows
from proagent.paths import PARTNERS_DIR
from proagent.training.checkpoint import SelfPlayScore, load_manifest

PACKAGE = Path(__file__).parents[2] / "proagent"
FORMATTER = PACKAGE / "numbers.py"
# A value formatted into an f-string right after a "±": a mean ± se written by hand.
HAND_MADE = re.compile(r"±\s*\{")


def test_no_mean_plus_minus_se_is_formatted_by_hand():
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != FORMATTER
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HAND_MADE.search(line)
    ]
    assert offenders == []


def test_a_self_play_score_of_one_episode_has_no_plus_minus():
    one = SelfPlayScore(mean=240.0, se=0.0, std=0.0, episodes=1, horizon=400)
    assert one.text() == "240.0 (n=1)"
    many = SelfPlayScore(mean=240.0, se=3.25, std=10.0, episodes=10, horizon=400)
    assert many.text(2) == "240.00 ± 3.25 (n=10)"


def test_the_partners_table_writes_self_play_with_the_formatter():
    rows = checkpoint_rows("overcooked")
    paths = sorted((PARTNERS_DIR / "overcooked").glob("*/*/manifest.json"))
    expected = [(m.self_play.text() if m.self_play is not None else "n/a") for m in map(load_manifest, (p.parent for p in paths))]
    score = COLUMNS.index("self-play return")
    assert sorted(row[score] for row in rows) == sorted(expected) and rows


def test_play_prints_its_summary_with_n_and_no_plus_minus_for_one_episode(tmp_path, capsys):
    argv = ["play", "--layout", "cramped_room", "--partner", "greedy", "--episodes", "1", "--horizon", "5"]
    argv += ["--runs-dir", str(tmp_path), "--no-gif", "--live", "off"]
    assert main([*argv, "--llm", "scripted"]) == 0
    said = capsys.readouterr()
    summary = next(line for line in said.out.splitlines() if line.startswith("mean score"))
    match = re.fullmatch(r"mean score over the episodes: (-?\d+(?:\.\d+)?) \(n=1\); summary in .*summary\.json", summary)
    assert match, summary
    episode = next(line for line in said.err.splitlines() if line.startswith("episode 1: score "))
    assert episode.startswith(f"episode 1: score {match.group(1)} ")  # one episode: the same number, written the same way
