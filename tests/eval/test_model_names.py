"""Every table and plot of a run names the model(s) that played and their prompt sets, so that a
test double's or the scripted stand-in's number is never read as a language model's."""

from __future__ import annotations

import pytest
from eval_helpers import config, run_eval

from proagent.cli import main
from proagent.eval import report as report_module
from proagent.eval.model_names import eval_llm_seats, models_caption, models_short


@pytest.mark.parametrize(
    ("llm", "said", "short"),
    [
        ("embedded", ("the embedded model (the default `--llm`) with LoRA adapter `smollm2-135m-all-worlds/adapter.gguf`, "
                      "prompt set `compact`"), "embedded model + LoRA adapter, prompts compact"),
        ("openai/gpt-4o-mini", "`openai/gpt-4o-mini`, prompt set `proagent`", "openai/gpt-4o-mini, prompts proagent"),
        ("python:tests.support.loopback:loopback_model", "a test double (scripted answers), not a language model",
         "test double (not an LLM), prompts proagent"),
        ("scripted", "the world's scripted planner (not a language model)",
         "scripted planner (not a language model), prompts proagent"),
    ],
)  # fmt: skip
def test_the_caption_names_each_model_and_prompt_set(llm: str, said: str, short: str) -> None:
    cfg = eval_llm_seats(config(agents=[{"kind": "proagent", "llm": llm}, {"kind": "greedy"}]))
    assert said in models_caption(cfg) and models_caption(cfg).startswith("Model (--llm, from config.json): `proagent`: ")
    assert models_short(cfg) == f"model: {short}"


def test_a_run_without_an_llm_agent_says_so() -> None:
    cfg = eval_llm_seats(config(agents=[{"kind": "greedy"}]))
    assert models_caption(cfg).startswith("Model: none (no LLM agent played") and models_short(cfg) == "no LLM agent"


def test_every_markdown_table_and_plot_of_a_run_names_its_model(world, tmp_path, monkeypatch) -> None:
    titles: list[str] = []
    real = report_module.score_chart
    monkeypatch.setattr(report_module, "score_chart", lambda table, path, title: titles.append(title) or real(table, path, title))
    handle, _ = run_eval(config(episodes=1, seats=[0]), world, tmp_path)
    caption = "Model (--llm, from config.json): `proagent`: `scripted`: the world's scripted planner (not a language model)"
    pages = sorted(handle.folder.path.glob("*.md"))
    assert {p.name for p in pages} >= {"table.md", "metrics.md"}
    for page in pages:
        heading, blank, line = page.read_text().splitlines()[:3]
        assert heading.startswith("# ") and not blank and line.startswith(caption), page.name
    assert titles and all(t.endswith("\nmodel: scripted planner (not a language model), prompts proagent") for t in titles)


def test_agents_that_share_a_model_are_named_together() -> None:
    cfg = eval_llm_seats(config(agents=[{"kind": "proagent", "label": "a"}, {"kind": "proagent", "label": "b", "llm": "openai/x"},
                         {"kind": "proagent", "label": "c"}]))  # fmt: skip
    caption = models_caption(cfg)
    assert caption.startswith("Models (--llm, from config.json): `a`, `c`: the embedded model")
    assert "; `b`: `openai/x`, prompt set `proagent`." in caption


def test_a_play_runs_report_names_the_model_its_config_records(tmp_path) -> None:
    """`proagent report` on a play run folder reads the model and prompt set from its config.json
    (a play run has no evaluation manifest: its caption once said the folder had no config.json)."""
    argv = ["play", "--layout", "cramped_room", "--partner", "greedy", "--llm", "scripted", "--prompt", "compact"]
    assert main([*argv, "--horizon", "3", "--runs-dir", str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    assert main(["report", str(run), "--quiet"]) == 0
    caption = "Model (--llm, from config.json): `proagent`: `scripted`: the world's scripted planner (not a language model)"
    line = (run / "table.md").read_text().splitlines()[2]
    assert line.startswith(caption) and "prompt set `compact`" in line


def test_a_human_run_without_a_model_says_none_played() -> None:
    from proagent.eval.model_names import play_llm_seats

    assert models_caption(play_llm_seats({"llm": "none", "agent": {}})).startswith("Model: none")
    assert play_llm_seats({"llm": "embedded", "agent": {"prompt": "compact"}})[0].prompt == "compact"


def test_an_evaluations_caption_names_the_sha256_of_the_adapter_that_played(tmp_path) -> None:
    """An adapter file replaced at the same path is another model: the caption of a page made from
    the run's records names the sha256 the run recorded, not only the path."""
    from proagent.llm.scripted import describe_with_adapter

    adapter = tmp_path / "taught" / "adapter.gguf"
    adapter.parent.mkdir()
    adapter.write_bytes(b"the adapter that played")
    cfg = config(agents=[{"kind": "proagent", "label": "student", "adapter": str(adapter)}])
    played = describe_with_adapter("embedded", adapter)
    adapter.write_bytes(b"another adapter, later, at the same path")
    caption = models_caption(eval_llm_seats(cfg, {"student": played}))
    assert f"with LoRA adapter `taught/adapter.gguf, sha256 {played.adapter_sha256[:12]}`" in caption
    assert "sha256" not in models_caption(eval_llm_seats(cfg))  # no records (an older run): the path alone
