"""A resumed evaluation adds episodes played by the agents that played its finished ones: a trained
partner retrained since (another checkpoint sha256), changed prompt templates or knowledge files are
refused in one line and nothing is played or lost; a run older than the partner record is pinned at
its first resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from eval_helpers import lines

from proagent.adapter_choice import SHIPPED_ADAPTER
from proagent.cli import main
from proagent.paths import partner_dir
from proagent.training import checkpoint

SCRIPTED_PROAGENT = ("--agents", "proagent", "--llm", "scripted")


def finished_run(root: Path, agent: tuple[str, ...] = ("--agents", "stay"), partners: str = "sp,greedy") -> Path:
    """A finished 5-step run in ``root``: one episode with each partner, seat 0."""
    args = ["eval", *agent, "--partners", partners, "--layouts", "cramped_room", "--seats", "0"]
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


def test_a_run_older_than_the_adapter_record_resumes_with_the_raw_model_it_played(tmp_path):
    """Before config.json named the adapter, the embedded model played raw; the field left out must
    not turn into today's default (the shipped adapter) at a resume."""
    from proagent.eval.manifest import load_manifest
    from proagent.runner.run_folder import RunFolder

    run = finished_run(tmp_path, SCRIPTED_PROAGENT, "greedy")
    path = run / "config.json"
    config = json.loads(path.read_text())
    (agent,) = config["config"]["agents"]
    agent["llm"] = "embedded"
    del agent["adapter"]
    path.write_text(json.dumps(config))
    assert load_manifest(RunFolder(run)).config.agents[0].adapter is None


def test_resume_refuses_an_adapter_file_replaced_at_the_same_path(tmp_path, capsys):
    """The same path with other bytes is another model: its episodes would not pool with the finished ones."""
    run = finished_run(tmp_path / "runs", SCRIPTED_PROAGENT, "greedy")
    adapter = tmp_path / "taught" / "adapter.gguf"
    adapter.parent.mkdir()
    shutil.copyfile(SHIPPED_ADAPTER, adapter)  # a real adapter, not the bytes the run recorded
    path, episodes = run / "config.json", run / "episodes.jsonl"
    config = json.loads(path.read_text())
    config["config"]["agents"][0] |= {"llm": "embedded", "adapter": str(adapter)}
    config["models"]["proagent"] |= {"adapter": str(adapter), "adapter_sha256": "0" * 64}  # the bytes it played with
    path.write_text(json.dumps(config))
    for what in ("proagent's adapter (taught/adapter.gguf) changed", "adapter.gguf: no such file"):  # replaced, deleted
        assert resume(run) == 2
        (error,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        assert what in error
        assert len(lines(episodes)) == 1  # nothing played, nothing lost
        adapter.unlink(missing_ok=True)
