"""A resumed evaluation adds episodes played by the agents that played its finished ones: a trained
partner retrained since (another checkpoint sha256), changed prompt templates or knowledge files are
refused in one line and nothing is played or lost; a run older than the partner record is pinned at
its first resume."""

from __future__ import annotations

import json
from pathlib import Path

from eval_helpers import lines

from proagent.cli import main
from proagent.paths import partner_dir
from proagent.training import checkpoint


def finished_run(root: Path) -> Path:
    args = ["eval", "--agents", "stay", "--partners", "sp,greedy", "--layouts", "cramped_room", "--seats", "0"]
    assert main([*args, "--episodes", "1", "--horizon", "5", "--runs-dir", str(root), "--progress", "off"]) == 0
    (run,) = root.iterdir()
    return run


def resume(run: Path) -> int:
    return main(["eval", "--resume", str(run), "--episodes", "2", "--progress", "off"])


def test_a_run_records_the_checkpoint_of_each_trained_partner(tmp_path):
    config = json.loads((finished_run(tmp_path) / "config.json").read_text())
    shipped = checkpoint.load_manifest(partner_dir("overcooked", "cramped_room", "sp")).params_sha256
    assert config["partner_provenance"] == {"sp": {"cramped_room": {"params_sha256": shipped}}}  # greedy is scripted


def test_resume_refuses_other_players_and_pins_an_older_run(tmp_path, capsys):
    run = finished_run(tmp_path)
    path, episodes = run / "config.json", run / "episodes.jsonl"
    original = json.loads(path.read_text())

    def recorded_as(**changes) -> None:
        path.write_text(json.dumps({**original, **changes}))

    retrained = {"sp": {"cramped_room": {"params_sha256": "0" * 64}}}  # as if sp was trained again since
    for changes, what in [
        ({"partner_provenance": retrained}, "trained partner(s) sp changed"),
        ({"knowledge_hash": "another"}, "the knowledge files changed"),
        ({"prompt_hashes": {"stay": {"planner.j2": "another"}}}, "the prompt templates changed"),
    ]:
        recorded_as(**changes)
        assert resume(run) == 2
        (error,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        assert what in error and "start a new run" in error
        assert len(lines(episodes)) == 2  # nothing played, nothing lost
    older = {k: v for k, v in original.items() if k != "partner_provenance"}  # written before the record existed
    path.write_text(json.dumps(older))
    assert resume(run) == 0 and len(lines(episodes)) == 4
    assert json.loads(path.read_text())["partner_provenance"] == original["partner_provenance"]
