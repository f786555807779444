"""`proagent finetune --eval`: the request it plays (defaults from the teaching runs, held-out
seeds), bad input refused before `--out` exists, one model per adapter in the evaluation's pool,
and, end to end, a scripted planner's run teaching a student that then plays against the raw model."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from proagent.cli import build_parser, main
from proagent.cli.finetune_eval import eval_request
from proagent.eval.config import AgentSpec, ConfigError
from proagent.eval.models import ModelPool, semaphore_per_endpoint
from proagent.finetune.dataset import PlayedEpisode, SupervisedPair
from proagent.finetune.scores import RAW, STUDENT
from proagent.finetune.train import MANIFEST_FILE, FinetuneManifest
from proagent.llm.types import Completion, Message


def _args(tmp_path: Path, *flags: str) -> argparse.Namespace:
    return build_parser(only="finetune").parse_args(["finetune", "run", "--out", str(tmp_path / "o"), "--eval", *flags])


def _taught(layout: str, seed: int, partner: str = "cole", seat: int = 0, domain: str = "overcooked"):
    run = f"{layout}-{seed}-{seat}"
    pair = SupervisedPair(
        messages=(Message(role="user", content=run),),
        answer="a",
        world=f"{domain}/{layout}",
        run=run,
        episode=0,
        step=0,
        score=0.0,
        accepted=True,
    )
    played = PlayedEpisode(
        run=run, episode=0, domain=domain, layout=layout, partner=partner, seat=seat, seed=seed, prompt="compact"
    )
    return pair, played


def test_the_request_defaults_to_what_the_teaching_runs_played(tmp_path: Path):
    taught = [_taught("counter_circuit", 100), _taught("counter_circuit", 101, seat=1), _taught("cramped_room", 100)]
    unused = PlayedEpisode(run="other", episode=0, domain="overcooked", layout="asymm_advantages", partner="greedy",
                           seat=0, seed=0)  # fmt: skip
    config = eval_request(_args(tmp_path), [p for p, _ in taught], [e for _, e in taught] + [unused], "embedded")
    assert (config.domain, config.layouts, config.partners, config.seats) == (
        "overcooked", ["counter_circuit", "cramped_room"], ["cole"], [0, 1],
    )  # fmt: skip
    assert (config.seed, config.episodes, config.horizon) == (0, 5, None)
    assert [(a.label, a.llm, a.prompt, a.adapter) for a in config.agents] == [
        (STUDENT, "embedded", "compact", None), (RAW, "embedded", "compact", None),
    ]  # fmt: skip


def test_flags_win_over_the_defaults(tmp_path: Path):
    pair, played = _taught("counter_circuit", 100)
    flags = ["--eval-layouts", "cramped_room", "--eval-partners", "greedy,cole", "--eval-seats", "1"]
    flags += ["--eval-episodes", "2", "--eval-seed", "7", "--eval-horizon", "50", "--eval-prompt", "proagent"]
    config = eval_request(_args(tmp_path, *flags), [pair], [played], "embedded")
    assert (config.layouts, config.partners, config.seats, config.seed, config.episodes, config.horizon) == (
        ["cramped_room"], ["greedy", "cole"], [1], 7, 2, 50,
    )  # fmt: skip
    assert {a.prompt for a in config.agents} == {"proagent"}


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        ([], "seeds the teaching runs played (counter_circuit seed 3); evaluate on held-out seeds, e.g. --eval-seed 4"),
        (["--eval-seed", "4"], None),
        (["--eval-layouts", "cramped_room"], None),  # seed 3 was taught on another layout
    ],
)
def test_seeds_the_teacher_played_are_refused(tmp_path: Path, flags: list[str], problem: str | None):
    pair, played = _taught("counter_circuit", 3)
    if problem is None:
        assert eval_request(_args(tmp_path, *flags), [pair], [played], "embedded").seed in (0, 4)
        return
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        eval_request(_args(tmp_path, *flags), [pair], [played], "embedded")


def test_a_set_of_two_domains_needs_eval_domain(tmp_path: Path):
    taught = [_taught("counter_circuit", 100), _taught("medium_3a", 100, partner="pusher", domain="cube")]
    pairs, played = [p for p, _ in taught], [e for _, e in taught]
    with pytest.raises(ConfigError, match="covers cube, overcooked; name the world to play with --eval-domain"):
        eval_request(_args(tmp_path), pairs, played, "embedded")
    config = eval_request(_args(tmp_path, "--eval-domain", "cube"), pairs, played, "embedded")
    assert (config.domain, config.layouts, config.partners) == ("cube", ["medium_3a"], ["pusher"])


class _Named:
    """A model double whose name is the adapter it was built with (its state, not a prompt's words)."""

    def __init__(self, spec: AgentSpec) -> None:
        self.name = f"model+{spec.adapter}"

    async def generate(self, messages: list[Message], **_options: object) -> Completion:
        raise AssertionError("not called")


def test_the_pool_gives_each_adapter_its_own_model():
    """Two agents of one embedded endpoint, one with an adapter: two models, not the first one built."""
    pool = ModelPool(_Named, None, semaphore_per_endpoint(2))
    student, raw = AgentSpec(label=STUDENT, adapter=Path("a.gguf")), AgentSpec(label=RAW, adapter="none")
    assert pool.get(student).name == "model+a.gguf" and pool.get(raw).name == "model+None"
    assert pool.get(AgentSpec(label="again", adapter=Path("a.gguf"))) is pool.get(student)


def _write_run(folder: Path, seed: int) -> Path:
    """A run folder as play writes it, small: one decision on counter_circuit with cole, seat 0."""
    folder.mkdir(parents=True)
    config = {"domain": "overcooked", "layout": "counter_circuit", "partner": "cole", "seat": 0,
              "agent": {"prompt": "compact"}}  # fmt: skip
    episode = {"episode": 0, "seed": seed, "layout": "counter_circuit", "partner": "cole", "seat": 0, "score": 0.0}
    schema = {"type": "object", "properties": {"plan": {"type": "string", "enum": ["wait(1)"]}}, "required": ["plan"]}
    attempt = {
        "messages": [{"role": "user", "content": "state"}],
        "structured": {"name": "proagent_plan", "json_schema": schema},
        "response": '{"plan": "wait(1)"}',
        "plan": "wait(1)",
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "episodes.jsonl").write_text(json.dumps(episode) + "\n")
    trace = {"episode": 0, "step": 0, "decision": {"attempts": [attempt]}}
    (folder / "trace.jsonl").write_text(json.dumps(trace) + "\n")
    return folder


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--eval-partners", "nobody"], "partners[0]"),
        (["--eval-layouts", "no_such_kitchen"], "layouts[0]"),
        (["--eval-seed", "98"], "seeds the teaching runs played (counter_circuit seed 100)"),
        (["--eval-prompt", "no_such_set"], "prompt"),
    ],
)
def test_bad_eval_input_is_one_line_and_exit_2_before_out_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture, flags: list[str], problem: str
):
    run = _write_run(tmp_path / "run", seed=100)
    out = tmp_path / "adapter"
    assert main(["finetune", str(run), "--out", str(out), "--eval", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and problem in err and not out.exists()


def test_eval_flags_without_eval_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture):
    run = _write_run(tmp_path / "run", seed=100)
    assert main(["finetune", str(run), "--out", str(tmp_path / "a"), "--eval-seed", "3", "--eval-horizon", "9"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--eval-seed, --eval-horizon only apply with --eval" in err
    assert not (tmp_path / "a").exists()


@pytest.mark.slow  # a scripted play run, training two steps, then two short episodes of a two-block model
def test_finetune_eval_plays_the_student_and_the_raw_model_end_to_end(
    two_layer_gguf: Path, tmp_path: Path, capsys: pytest.CaptureFixture
):
    runs, out, cache = tmp_path / "runs", tmp_path / "adapter", tmp_path / "cache"
    play = ["play", "--layout", "counter_circuit", "--partner", "cole", "--llm", "scripted", "--prompt", "compact"]
    play += ["--seed", "100", "--horizon", "20", "--runs-dir", str(runs), "--live", "off", "--no-gif"]
    assert main(play) == 0
    (run,) = runs.glob("*-play-counter_circuit-cole")
    args = ["finetune", str(run), "--out", str(out), "--steps", "2", "--batch-size", "1", "--rank", "2"]
    args += ["--targets", "q,v", "--max-per-world", "3", "--balance", "worlds", "--model", str(two_layer_gguf)]
    args += ["--eval"]
    args += ["--eval-episodes", "1", "--eval-horizon", "8", "--cache-dir", str(cache), "--progress", "off"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "student: score" in printed and "raw: score" in printed and "student - raw, paired by episode" in printed
    manifest = FinetuneManifest.model_validate_json((out / MANIFEST_FILE).read_text())
    assert manifest.selection is not None and manifest.selection.data_filter.balance == "worlds"
    assert manifest.selection.worlds_kept == {"overcooked/counter_circuit": 3} and manifest.data.n_examples == 3
    answers = manifest.selection.answers  # the scripted planner's lines, taught as the compact request's JSON
    assert answers is not None and set(answers.formats) == {"json"} and answers.dropped == {}
    assert "answers taught as json" in printed
    result = manifest.evaluation
    assert result is not None and result.adapter_sha256 == manifest.adapter_sha256
    assert (result.layouts, result.partners, result.seats, result.seeds, result.horizon) == (
        ["counter_circuit"], ["cole"], [0], [0], 8,
    )  # fmt: skip
    assert result.score[STUDENT].n == result.score[RAW].n == result.score_difference.n == 1
    records = [json.loads(line) for line in (out / result.run_folder / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["agent"] for r in records) == [RAW, STUDENT]
    assert result.score[STUDENT].mean == next(r["score"] for r in records if r["agent"] == STUDENT)
    assert (out / result.run_folder / "table.md").is_file()
    asked = {json.loads(p.read_text())["request"]["model"] for p in cache.rglob("*.json")}
    sha = manifest.adapter_sha256[:12]
    assert asked == {f"embedded/{two_layer_gguf.stem}", f"embedded/{two_layer_gguf.stem}+lora-{sha}"}


def test_the_manifest_names_the_evaluation_folder_inside_out_given_relative_or_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from proagent.cli.finetune_eval import folder_in

    monkeypatch.chdir(tmp_path)
    run = (tmp_path / "adapter" / "eval" / "20261130-000000-finetune-eval").absolute()
    assert folder_in(run, Path("adapter")) == "eval/20261130-000000-finetune-eval"  # --out adapter
    assert folder_in(run, tmp_path / "adapter") == "eval/20261130-000000-finetune-eval"
