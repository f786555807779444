"""The trace keeps every LLM seat's reasoning: a ProAgent teammate's decisions (analysis,
intention, attempts, loops) are on the line as ``team_decisions``, and the replay shows them."""

from __future__ import annotations

from eval_helpers import config, lines, run_eval

from proagent.web.replay_data import episode_payload, load_run


def test_a_proagent_teammates_reasoning_is_in_the_trace_and_the_replay(world, tmp_path) -> None:
    cfg = config(agents=[{"kind": "proagent", "llm": "scripted"}], partners=["proagent"], seats=[0], episodes=1, trace=True)
    handle, _ = run_eval(cfg, world, tmp_path)
    trace = lines(handle.folder.path / "trace.jsonl")
    mates = [t["team_decisions"]["1"] for t in trace if t.get("team_decisions")]
    assert mates and all(d["analysis"] is not None and "attempts" in d and "loops" in d for d in mates)
    frames = episode_payload(load_run(handle.folder.path))["frames"]
    first = next(i for i, f in enumerate(frames) if f["team_decisions"])
    assert frames[first]["team_decisions"]["1"]["skill"] == mates[0]["skill"]
    assert all(f["team"]["1"]["analysis"] for f in frames[first:])  # carried forward, as the agent's own
