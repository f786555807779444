"""`proagent finetune` on a run folder `proagent play` really wrote (its answers from the loopback
planner over HTTP): the pairs it reads, the filters, bad input refused before anything is made,
and, slow, the whole command with a few steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.finetune.dataset import DataFilter, RunFolderError, read_run_folder, select_pairs
from proagent.finetune.train import MANIFEST_FILE, FinetuneManifest
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC
from tests.support.responders.overcooked import overcooked_answer


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("runs")
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as server:
        args = [
            "play",
            "--layout",
            "cramped_room",
            "--partner",
            "greedy",
            "--llm",
            LOOPBACK_SPEC,
            "--api-base",
            server.url,
        ]
        args += [
            "--horizon",
            "30",
            "--runs-dir",
            str(runs),
            "--cache-dir",
            str(runs / "cache"),
            "--live",
            "off",
            "--no-gif",
        ]
        assert main(args) == 0
    (run,) = list(runs.glob("*-play-cramped_room-greedy"))
    return run


@pytest.mark.slow  # the run folder comes from a real `proagent play` (tens of seconds on 2 cores)
def test_a_run_folder_gives_the_prompts_sent_and_the_answers_acted_on(run_folder: Path):
    pairs = read_run_folder(run_folder)
    trace = [json.loads(line) for line in (run_folder / "trace.jsonl").read_text().splitlines()]
    decisions = [t["decision"] for t in trace if t.get("decision")]
    assert len([p for p in pairs if p.accepted]) == len([d for d in decisions if not d["fallback"]]) > 0
    first = decisions[0]["attempts"][-1]
    assert pairs[0].messages[0].role == "system" and pairs[0].messages[0].content == first["messages"][0]["content"]
    assert pairs[0].answer == first["response"] and pairs[0].world == "overcooked/cramped_room"
    assert pairs[0].structured is not None and pairs[0].structured.model_dump() == first["structured"]
    assert pairs[0].plan == first["plan"]
    score = json.loads((run_folder / "episodes.jsonl").read_text().splitlines()[0])["score"]
    assert {p.score for p in pairs} == {score}


@pytest.mark.slow
def test_the_filters_keep_what_they_say(run_folder: Path):
    pairs = read_run_folder(run_folder)
    doubled = pairs + pairs
    assert len(select_pairs(doubled, DataFilter())) == len({(p.messages, p.answer) for p in pairs if p.accepted})
    assert len(select_pairs(doubled, DataFilter(dedup=False))) == 2 * len([p for p in pairs if p.accepted])
    assert select_pairs(pairs, DataFilter(min_score=pairs[0].score + 1)) == []
    assert len(select_pairs(pairs, DataFilter(max_per_world=2))) == 2


def test_a_folder_that_is_no_run_is_one_line_and_exit_2_before_out_is_made(tmp_path: Path, capsys):
    out = tmp_path / "adapter"
    assert main(["finetune", str(tmp_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "is not a run folder" in err
    assert not out.exists()
    with pytest.raises(RunFolderError):
        read_run_folder(tmp_path)


@pytest.mark.slow
def test_filters_that_keep_nothing_are_refused_before_out_is_made(run_folder: Path, tmp_path: Path, capsys):
    out = tmp_path / "adapter"
    assert main(["finetune", str(run_folder), "--out", str(out), "--min-score", "1000000"]) == 2
    assert "passes the filters" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--rank", "0"),
        ("--min-score", "nan"),
        ("--lr", "-1"),
        ("--targets", "q,x"),
        ("--holdout", "-1"),
        ("--checkpoint-every", "0"),
        ("--log-every", "0"),
        ("--plan-weight", "0"),
        ("--plan-weight", "101"),
    ],
)
def test_bad_numbers_are_refused(tmp_path: Path, capsys, flag: str, value: str):
    with pytest.raises(SystemExit) as exit_info:
        main(["finetune", str(tmp_path), "--out", str(tmp_path / "a"), flag, value])
    assert exit_info.value.code == 2 and flag in capsys.readouterr().err and not (tmp_path / "a").exists()


@pytest.mark.slow  # a real play run, then training on its ~1000-token prompts (a two-block cut of the model)
def test_finetune_trains_exports_and_resumes_end_to_end(run_folder: Path, two_layer_gguf: Path, tmp_path: Path, capsys):
    out = tmp_path / "adapter"
    args = ["finetune", str(run_folder), "--out", str(out), "--steps", "2", "--batch-size", "1", "--rank", "2"]
    args += ["--targets", "q,v", "--max-per-world", "3", "--model", str(two_layer_gguf), "--checkpoint-every", "1"]
    assert main([*args, "--log-every", "1"]) == 0
    printed = capsys.readouterr().out
    assert "step 1/2 loss" in printed and "step 2/2 loss" in printed and "examples/s" in printed
    manifest = FinetuneManifest.model_validate_json((out / MANIFEST_FILE).read_text())
    assert manifest.data.n_examples == 3 and manifest.steps_done == 2 and (out / "adapter.gguf").is_file()
    assert manifest.config.checkpoint_every == 1 and manifest.config.log_every == 1
    assert manifest.selection is not None and manifest.selection.worlds_taught == {"overcooked/cramped_room": 3}
    assert "3 examples (1 world(s): overcooked/cramped_room 3) from 3 kept answers;" in printed
    assert main(args) == 2  # --out holds a run: refused without --resume
    assert main([*args, "--resume"]) == 0  # nothing left to do, same adapter
    again = FinetuneManifest.model_validate_json((out / MANIFEST_FILE).read_text())
    assert again.adapter_sha256 == manifest.adapter_sha256
    assert again.examples_per_s > 0  # the speed of the steps that made it, not 0 for a resume with none left

    onward = [*args[:3], str(tmp_path / "onward"), *args[4:], "--init-adapter"]
    capsys.readouterr()
    assert main([*onward, str(tmp_path / "missing.gguf")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--init-adapter" in err and not (tmp_path / "onward").exists()
    assert main([*onward, str(out / "adapter.gguf")]) == 0
    continued = FinetuneManifest.model_validate_json((tmp_path / "onward" / MANIFEST_FILE).read_text())
    assert continued.config.init_adapter_sha256 == manifest.adapter_sha256


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("config.json", "{not json", "config.json is not JSON"),
        (
            "trace.jsonl",
            '{"episode": 0, "decision": {"attempts": [{"messages": [{"role": "x"}], "response": "a"}]}}\n',
            "cannot use",
        ),
    ],
)
def test_a_broken_run_folder_is_one_line_and_exit_2(tmp_path: Path, capsys, name: str, text: str, problem: str):
    run = tmp_path / "run"
    run.mkdir()
    files = {"config.json": "{}", "episodes.jsonl": '{"episode": 0, "score": 0}\n', "trace.jsonl": ""}
    for file, content in {**files, name: text}.items():
        (run / file).write_text(content)
    assert main(["finetune", str(run), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and problem in err and not (tmp_path / "out").exists()


def test_the_first_line_counts_what_is_taught_after_max_tokens_and_names_a_world_it_empties() -> None:
    from proagent.cli.finetune_cmd import _set_line
    from proagent.cli.finetune_request import FinetuneRequest
    from proagent.finetune.dataset import DataSelection

    selection = DataSelection(
        runs=["r"],
        data_filter=DataFilter(),
        pairs_read=9,
        worlds_read={"w/long": 4, "w/short": 5},
        worlds_kept={"w/long": 4, "w/short": 5},
        worlds_taught={"w/short": 5},
    )
    request = FinetuneRequest(runs=(Path("r"),), out=Path("o"), max_tokens=1600)
    line = _set_line(selection, request, kept=9, heldout=0)
    assert line.startswith("5 examples (1 world(s): w/short 5) from 9 kept answers")
    assert "(4 longer than --max-tokens 1600 dropped; every answer of w/long)" in line
