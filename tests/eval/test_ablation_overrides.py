"""An ablation never relabels results: a flag that sets a field the variants vary is refused before
any run folder, and ablation.md shows the values each variant actually ran with (from config.json)."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import config, lines, play

from proagent.cli import main
from proagent.eval.ablation import expand_ablation, refuse_varied_overrides
from proagent.eval.config import ConfigError, read_config_file
from proagent.eval.manifest import AblationInfo
from proagent.eval.session import report_run, start_run

ABLATIONS = Path(__file__).parents[2] / "runs" / "ablations"
QUICK = ["--episodes", "1", "--horizon", "5", "--seats", "0", "--layouts", "cramped_room", "--progress", "off"]




@pytest.mark.parametrize(
    ("file", "flag", "field", "shown"),
    [
        ("memory_k.toml", ["--memory-k", "3"], "memory_k", "--memory-k"),
        ("verificator.toml", ["--no-verificator"], "verificator", "--verificator/--no-verificator"),
        ("verificator.toml", ["--verificator", "llm3"], "verificator", "--verificator/--no-verificator"),
        ("prompt_variants.toml", ["--legal-only", "on"], "legal_only", "--legal-only"),
        ("belief.toml", ["--belief", "off"], "belief", "--belief"),
    ],
)
def test_a_flag_over_a_varied_field_is_refused_before_any_run_folder(
    file, flag, field, shown, tmp_path, capsys
):
    path = ABLATIONS / file  # with a working model and grid: the flag is the only thing wrong
    code = main(["ablate", str(path), *flag, "--llm", "scripted", *QUICK, "--runs-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and list(tmp_path.iterdir()) == []
    expected = f"error: {shown} overrides {field}, which {path} varies; drop the flag or edit the ablation file"
    assert err.splitlines() == [expected]


def test_flags_over_fields_no_variant_sets_are_accepted():
    _, info = expand_ablation(read_config_file(ABLATIONS / "memory_k.toml"), "memory_k.toml")
    assert info.varied == ["memory_k"]
    refuse_varied_overrides(info, {"llm": "--llm", "belief": "--belief"}, "memory_k.toml")  # not varied: no error
    with pytest.raises(ConfigError, match="--memory-k overrides memory_k"):
        refuse_varied_overrides(info, {"llm": "--llm", "memory_k": "--memory-k"}, "memory_k.toml")


def _ablation_run(world, tmp_path: Path, agents: list[dict], varied: list[str]) -> Path:
    cfg = config(agents=agents, partners=["greedy"], seats=[0], episodes=2)
    info = AblationInfo(title="Memory", variants=[a["label"] for a in agents], metrics=["score", "llm_calls"], varied=varied)
    handle = start_run(cfg, world, "pytest", tmp_path, info)
    play(handle, world)
    report_run(handle.folder.path)
    return handle.folder.path


def test_the_ablation_table_shows_the_values_each_variant_ran_with(world, tmp_path):
    # Labels that lie (what an override used to produce): both variants ran memory_k = 3.
    agents = [{"kind": "proagent", "llm": "scripted", "label": "k0", "memory_k": 3}, {"kind": "proagent", "llm": "scripted", "label": "k5", "memory_k": 3}]
    run = _ablation_run(world, tmp_path, agents, ["memory_k"])
    text = (run / "ablation.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| agent"))
    assert header.split(" | ")[1] == "memory_k"
    rows = [line for line in text.splitlines() if line.startswith(("| k0 ", "| k5 "))]
    assert [row.split(" | ")[1] for row in rows] == ["3", "3"]
    assert "Δ score vs k0 [95% CI]" in header and "score 95% CI" in header
    assert "paired by partner, layout, seat and seed" in text and "95% t interval" in text
    csv_header = (run / "ablation.csv").read_text().splitlines()[0]
    assert csv_header.startswith("agent,memory_k,score_mean,score_se,score_n,score_ci_low,score_ci_high,score_diff_mean")


def test_fields_that_differ_are_shown_even_when_the_run_did_not_record_what_was_varied(world, tmp_path):
    agents = [{"kind": "proagent", "llm": "scripted", "label": "a", "memory_k": 0}, {"kind": "proagent", "llm": "scripted", "label": "b", "memory_k": 1}]
    run = _ablation_run(world, tmp_path, agents, [])  # a run from before `varied` was recorded
    rows = [line.split(" | ") for line in (run / "ablation.md").read_text().splitlines() if line.startswith(("| a ", "| b "))]
    assert [row[1] for row in rows] == ["0", "1"]
    assert rows[0][4] == "baseline"  # score, its interval, then the difference column
    assert len(lines(run / "episodes.jsonl")) == 4
