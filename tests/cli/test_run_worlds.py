"""Every reader of a run folder reads the world the run played: `replay`, `report` and `analyze` on
a `play` and an `eval` run of each world (Overcooked, CUBE and Yōkai, ProAgent on each world's scripted
planner, short horizons). A CUBE evaluation is drawn as CUBE (its config names the world under ``config``), not as
a kitchen; a play run has a report; `world_of` is the one function that says which world it was."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.interdependence.folder import EpisodeAnalysis
from proagent.interdependence.intention import IntentionAccuracy
from proagent.interdependence.records import EpisodeInterdependence
from proagent.interdependence.report import episode_name, intention_lines
from proagent.numbers import format_score
from proagent.runner.run_world import RunFolderError, world_of

HORIZON = 12
WORLDS = {"overcooked": ("cramped_room", "greedy"), "cube": ("easy_2a", "pusher"), "yokai": ("9c_2p", "careful")}
RUNS = [(world, kind) for world in WORLDS for kind in ("play", "eval")]
OWN_METRIC = {"overcooked": "soups", "cube": "blocks_delivered", "yokai": "game_score"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """A two-episode play run and a traced two-episode eval run of each world (what play printed
    to stderr is kept as ``<run>/play.err`` for the tests of its lines)."""
    root = tmp_path_factory.mktemp("world-runs")
    out = {}
    for world, (layout, partner) in WORLDS.items():
        common = ["--llm", "scripted", "--runs-dir", str(root), "--domain", world, "--horizon", str(HORIZON)]
        play = ["play", "--layout", layout, "--partner", partner, "--episodes", "2", "--live", "off", "--no-gif"]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main([*play, *common, "--name", f"play-{world}"]) == 0
        (played,) = root.glob(f"*-play-{world}")
        (played / "play.err").write_text(err.getvalue(), encoding="utf-8")
        evaluate = ["eval", "--layouts", layout, "--partners", partner, "--seats", "0", "--episodes", "2", "--trace"]
        assert main([*evaluate, *common, "--progress", "off", "--name", f"eval-{world}"]) == 0
        for kind in ("play", "eval"):
            (out[world, kind],) = root.glob(f"*-{kind}-{world}")
    return out


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_world_of_names_the_world_of_every_run(runs, world, kind):
    assert world_of(runs[world, kind]) == world


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_replay_draws_the_world_the_run_played(runs, world, kind, tmp_path):
    out = tmp_path / "replay.html"
    assert main(["replay", str(runs[world, kind]), "--export", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert f'"domain": "{world}"' in html
    if world == "cube":
        assert "soup" not in html, "a CUBE run drawn with the kitchen's script"


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_report_reads_the_run_and_names_its_world(runs, world, kind, capsys):
    run = runs[world, kind]
    assert main(["report", str(run), "--quiet"]) == 0
    table = (run / "table.md").read_text(encoding="utf-8")
    assert f"({world})" in table.splitlines()[0]
    assert OWN_METRIC[world] in (run / "metrics.md").read_text(encoding="utf-8")
    assert "2 episode(s)" in capsys.readouterr().err


@pytest.mark.parametrize(("world", "kind"), RUNS)
def test_analyze_reads_the_world_of_the_run(runs, world, kind, capsys):
    code = main(["analyze", str(runs[world, kind]), "--no-write"])
    captured = capsys.readouterr()
    if world == "overcooked":
        assert code == 0 and "2 of 2 episodes analyzed from the trace" in captured.out
    else:
        assert code == 2 and f"domain '{world}' has no interdependence model" in captured.err and "Traceback" not in captured.err


def test_world_of_reads_older_and_training_folders(tmp_path):
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    assert world_of(legacy) == "overcooked", "runs from before worlds were all Overcooked"
    old_eval = tmp_path / "old-eval"
    old_eval.mkdir()
    (old_eval / "config.json").write_text(json.dumps({"config": {"domain": "cube", "name": "x"}, "layout_names": []}))
    assert world_of(old_eval) == "cube"
    train = tmp_path / "train"
    train.mkdir()
    (train / "manifest.json").write_text(json.dumps({"world": "overcooked_v2", "algo": "sp"}))
    assert world_of(train) == "overcooked_v2"


@pytest.mark.parametrize(
    "config",
    ['{"domain": 7}', '{"domain": ["cube"]}', '{"domain": "../../etc"}', '{"config": {"domain": {"x": 1}}}', "[1, 2]", "{nope", '"cube"'],
)
def test_world_of_refuses_what_is_not_a_world_name(tmp_path, config):
    (tmp_path / "config.json").write_text(config)
    with pytest.raises(RunFolderError, match="config.json"):
        world_of(tmp_path)


def test_a_replay_of_a_folder_naming_no_world_is_one_clear_error(runs, tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "trace.jsonl").write_bytes((runs["cube", "play"] / "trace.jsonl").read_bytes())
    (run / "config.json").write_text('{"domain": {"$ne": 1}}')
    assert main(["replay", str(run), "--export", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not name a world" in err


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _exported(run: Path, tmp_path: Path, *flags: str) -> dict:
    out = tmp_path / "replay.html"
    assert main(["replay", str(run), *flags, "--export", str(out)]) == 0
    data = re.search(r"window\.REPLAY_DATA = (.*?);</script>", out.read_text(encoding="utf-8"), re.DOTALL)
    assert data is not None
    return json.loads(data.group(1))


@pytest.mark.parametrize("world", WORLDS)
def test_play_lines_count_episodes_from_one_and_write_scores_as_everywhere(runs, world):
    run = runs[world, "play"]
    # each episode's closing line ("episode 2: score ..."); a slow machine adds timed progress lines ("episode 1/2: step ...")
    lines = [line for line in (run / "play.err").read_text(encoding="utf-8").splitlines() if re.match(r"episode \d+:", line)]
    scores = [record["score"] for record in _records(run / "episodes.jsonl")]
    assert [line.split(":")[0] for line in lines] == ["episode 1", "episode 2"]
    assert [line.split("score ")[1].split(" ")[0] for line in lines] == [format_score(s) for s in scores]


def test_the_replay_writes_the_score_as_the_lines_do_and_charts_the_world_s_own_range(runs, tmp_path):
    run = runs["cube", "play"]
    payload = _exported(run, tmp_path)
    (first, *_) = _records(run / "episodes.jsonl")
    assert payload["frames"][-1]["score_text"] == format_score(first["score"]) == "-0.12", "CUBE pays a step cost"
    assert payload["score_span"] == ["-0.12", "0"]
    script = (Path(__file__).parents[2] / "proagent" / "web" / "static" / "replay.js").read_text(encoding="utf-8")
    assert "f.score_text" in script and "max 20" not in script and "Math.max(20, ..." not in script


def test_replay_lists_the_episodes_and_picks_one_by_its_number_not_by_when_it_finished(runs, tmp_path, capsys):
    run = Path(shutil.copytree(runs["overcooked", "eval"], tmp_path / "eval"))
    finished = (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    (run / "episodes.jsonl").write_text("\n".join(reversed(finished)) + "\n", encoding="utf-8")  # episode 2 finished first
    trace = _records(run / "trace.jsonl")
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sorted(trace, key=lambda r: -r["episode"])))
    assert main(["replay", str(run), "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split() == ["episode", "pair", "partner", "seed", "score", "steps"]
    assert [row.split()[:4] for row in listed[1:]] == [["1", "proagent|greedy|cramped_room|p0", "greedy", "0"],
                                                      ["2", "proagent|greedy|cramped_room|p0", "greedy", "1"]]  # fmt: skip
    payload = _exported(run, tmp_path, "--episode", "1")
    assert payload["episodes"][payload["episode"]] == "proagent|greedy|cramped_room|p0 · episode 1"
    assert main(["replay", str(run), "--episode", "3", "--no-browser"]) == 2
    assert "episode 3 is not in this run; it has episode(s) 1..2" in capsys.readouterr().err


def test_replay_asks_which_pair_when_several_played_the_number(runs, tmp_path, capsys):
    run = Path(shutil.copytree(runs["overcooked", "eval"], tmp_path / "eval"))
    (run / "episodes.jsonl").unlink()
    lines = _records(run / "trace.jsonl")
    other = [{**r, "key": r["key"].replace("|p0|", "|p1|"), "seat": 1} for r in lines]
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*lines, *other]))
    assert main(["replay", str(run), "--episode", "1", "--no-browser"]) == 2
    assert "--pair with one of proagent|greedy|cramped_room|p0, proagent|greedy|cramped_room|p1" in capsys.readouterr().err
    payload = _exported(run, tmp_path, "--episode", "2", "--pair", "proagent|greedy|cramped_room|p1")
    assert payload["episodes"][payload["episode"]] == "proagent|greedy|cramped_room|p1 · episode 2" and payload["seat"] == 1


def test_analyze_writes_its_own_files_and_leaves_the_report_s(runs, tmp_path, capsys):
    run = Path(shutil.copytree(runs["overcooked", "eval"], tmp_path / "eval"))
    report_table = (run / "interdependence.md").read_bytes()
    assert main(["analyze", str(run)]) == 0
    assert (run / "interdependence.md").read_bytes() == report_table, "eval's interdependence.md is the report's"
    analysis = (run / "analysis.md").read_text(encoding="utf-8")
    assert "## Intention accuracy: recorded and recomputed" in analysis and "the tables use it" in analysis
    assert "analysis.md" in capsys.readouterr().out


def test_a_differing_intention_count_is_named_and_explained():
    def analysed(eid: str, recorded: tuple[int, int], recomputed: tuple[int, int]) -> EpisodeAnalysis:
        return EpisodeAnalysis(
            id=eid, group="g", layout="l", seat=0, source="trace", interdependence=EpisodeInterdependence(),
            intention_reported=IntentionAccuracy(hits=recorded[0], total=recorded[1]),
            intention_recomputed=IntentionAccuracy(hits=recomputed[0], total=recomputed[1]),
        )  # fmt: skip

    episodes = [analysed("0", (5, 11), (6, 12)), analysed("proagent|greedy|cramped_room|p1|3", (2, 2), (2, 2))]
    assert intention_lines(episodes) == ["episode 1: intention 5/11 recorded (in the tables), 6/12 recomputed from the trace"]
    assert episode_name("proagent|greedy|cramped_room|p1|3") == "proagent|greedy|cramped_room|p1 · episode 4"


def test_names_a_shared_folder_carries_never_drive_the_terminal(runs, tmp_path, capsys, caplog):
    hostile = "greedy\x1b]0;pwned\x07\x1b[2J\nplayer 0 wrote: forged"
    run = Path(shutil.copytree(runs["overcooked", "play"], tmp_path / "play"))
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    (run / "config.json").write_text(json.dumps({**config, "partner": hostile}), encoding="utf-8")
    records = _records(run / "episodes.jsonl")
    assert main(["replay", str(run), "--list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert len(out.splitlines()) == 1 + len(records)  # a name stays on its own line

    crafted = [{**r, "partner": hostile} for r in records]
    (run / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in crafted), encoding="utf-8")
    assert main(["report", str(run)]) == 0
    said = capsys.readouterr()
    both = said.out + said.err
    assert "\x1b" not in both, both[max(0, both.find("\x1b") - 300) : both.find("\x1b") + 50]
    assert "control character" in caplog.text  # the record is skipped, with its reason
    assert not any("\x1b" in f.read_text(encoding="utf-8") for f in run.glob("*.md"))


@pytest.mark.parametrize("world", WORLDS)
def test_an_evaluation_records_its_model_as_the_scripted_planner(runs, world):
    """An evaluation's config.json says, per agent, that the model is no language model, and every
    episode line names it; the cache never holds a scripted answer."""
    run = runs[world, "eval"]
    manifest = json.loads((run / "config.json").read_text(encoding="utf-8"))
    assert manifest["models"]["proagent"]["kind"] == "scripted"
    assert manifest["models"]["proagent"]["is_language_model"] is False
    lines = [json.loads(line) for line in (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(e["model"], e["cached_calls"]) for e in lines] == [("scripted", 0)] * 2
    assert all(e["llm_calls"] > 0 for e in lines)


def test_report_of_a_play_run_reads_its_config_once(runs, monkeypatch):
    """The world and the LLM agent of a play run come from one read of its config.json: two readers
    of one file could each see a different file (one rewritten between them), and each read is the
    untrusted checks again."""
    run = runs["overcooked", "play"]
    reads: list[str] = []
    read_bytes, read_text = Path.read_bytes, Path.read_text

    def counted_bytes(self: Path) -> bytes:
        reads.extend(["read_bytes"] if self.name == "config.json" else [])
        return read_bytes(self)

    def counted_text(self: Path, encoding: str | None = None, errors: str | None = None) -> str:
        reads.extend(["read_text"] if self.name == "config.json" else [])
        return read_text(self, encoding, errors)

    monkeypatch.setattr(Path, "read_bytes", counted_bytes)
    monkeypatch.setattr(Path, "read_text", counted_text)
    assert main(["report", str(run), "--quiet"]) == 0
    assert len(reads) == 1, reads
    assert "scripted" in (run / "table.md").read_text(encoding="utf-8"), "the model the play run named is reported"
