"""A disk that refuses writes mid-run: one line, finished episodes intact, a resume plays the rest.

The disk is made to refuse for real, without root: a child process runs under a file-size limit
(``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored), so a write that would grow a file past the limit
writes what fits and then fails, exactly like a full disk cutting a line in half.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proagent.cli import main
from proagent.jsonl import read_jsonl
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer

ROOT = Path(__file__).parents[2]


LIMITED_MAIN = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
from proagent.cli import main
sys.exit(main(sys.argv[2:]))
"""


def run_limited(args: list[str], size: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``proagent args`` in a child whose files may not grow past ``size`` bytes (the limit is set
    by the child itself: forking this multithreaded process to set it would risk a deadlock)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-c", LIMITED_MAIN, str(size), *args]
    return subprocess.run(command, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


APPEND_UNDER_LIMIT = """
import errno, resource, signal, sys
from pathlib import Path
from proagent.runner.run_folder import RunFolder
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
resource.setrlimit(resource.RLIMIT_FSIZE, (300, hard))
folder = RunFolder(Path(sys.argv[1]))
folder.append_jsonl("episodes.jsonl", {"episode": 0, "text": "x" * 100}, durable=True)
try:
    folder.append_jsonl("episodes.jsonl", {"episode": 1, "text": "y" * 400}, durable=True)
except OSError as exc:
    print(errno.errorcode[exc.errno])
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
folder.append_jsonl("episodes.jsonl", {"episode": 2, "text": "z"}, durable=True)
"""


def test_an_append_the_disk_cuts_short_leaves_no_torn_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", APPEND_UNDER_LIMIT, str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "EFBIG"  # the write really failed half-way (300 bytes fit, the line is 420)
    text = (tmp_path / "episodes.jsonl").read_text()
    assert [json.loads(line)["episode"] for line in text.splitlines()] == [0, 2]  # no half line glued to the next


@pytest.fixture(scope="module")
def server():
    with FakeChatServer(delay_s=0.0, responder=overcooked_answer) as srv:
        yield srv


def test_eval_on_a_disk_that_fills_stops_with_one_line_and_resumes(server, tmp_path, capsys):
    grid = ["--agents", "proagent", "--partners", "greedy", "--layouts", "cramped_room", "--seats", "0", "--horizon", "30"]
    grid += [*loopback_args(server.url), "--progress", "off", "--trace", "--concurrency", "1"]
    assert main(["eval", *grid, "--episodes", "1", "--runs-dir", str(tmp_path / "probe")]) == 0
    (probe,) = (tmp_path / "probe").iterdir()
    one_episode = (probe / "trace.jsonl").stat().st_size
    capsys.readouterr()

    runs = tmp_path / "runs"
    done = run_limited(["eval", *grid, "--episodes", "3", "--runs-dir", str(runs)], one_episode * 3 // 2, tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr + done.stdout
    said = [line for line in (done.stderr + done.stdout).splitlines() if "cannot write" in line]
    assert len(said) == 1 and "trace.jsonl" in said[0] and "proagent eval --resume" in said[0], said
    (run,) = runs.iterdir()
    kept = read_jsonl(run / "episodes.jsonl")
    assert kept.skipped == [] and [r["episode"] for r in kept.records] == [0]
    assert not (run / "failures.jsonl").exists()  # a full disk is not an episode's failure

    assert main(["eval", "--resume", str(run), "--progress", "off"]) == 0  # the disk has room again
    records = read_jsonl(run / "episodes.jsonl").records
    assert sorted(r["episode"] for r in records) == [0, 1, 2]
    assert records[0] == kept.records[0]  # the finished episode was not played again


def test_play_on_a_disk_that_fills_ends_with_one_line_and_keeps_the_finished_episode(server, tmp_path, capsys):
    game = ["play", "--layout", "cramped_room", "--partner", "greedy", "--horizon", "30", "--no-gif", "--live", "off"]
    game += loopback_args(server.url)
    assert main([*game, "--episodes", "1", "--runs-dir", str(tmp_path / "probe")]) == 0
    (probe,) = (tmp_path / "probe").iterdir()
    one_episode = (probe / "trace.jsonl").stat().st_size
    capsys.readouterr()

    runs = tmp_path / "runs"
    done = run_limited([*game, "--episodes", "3", "--runs-dir", str(runs)], one_episode * 3 // 2, tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "cannot write" in line]
    assert len(said) == 1 and "trace.jsonl" in said[0], done.stderr
    (run,) = runs.iterdir()
    kept = read_jsonl(run / "episodes.jsonl")
    assert kept.skipped == [] and [r["episode"] for r in kept.records] == [0]


def test_a_cache_folder_that_refuses_writes_warns_once_and_the_answers_still_come(tmp_path, monkeypatch, caplog):
    import asyncio
    import errno

    from proagent.llm import cache
    from proagent.llm.types import Message
    from tests.support.scripted import ScriptedModel

    def read_only(path: Path, data: str | bytes) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(cache, "write_atomic", read_only)
    model = cache.CachedModel(ScriptedModel(respond=lambda call: f"answer {len(call.messages)}"), tmp_path / "cache")
    answers = [asyncio.run(model.generate([Message(role="user", content=f"q{i}")])) for i in range(3)]
    assert [a.text for a in answers] == ["answer 1"] * 3 and model.misses == 3
    warnings = [r.getMessage() for r in caplog.records if "not being cached" in r.getMessage()]
    assert len(warnings) == 1 and "Read-only file system" in warnings[0]


def test_a_cache_folder_the_user_may_not_write_is_refused_before_any_run(tmp_path, monkeypatch, capsys):
    from proagent.cli import arg_types

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    real_access = os.access
    monkeypatch.setattr(arg_types.os, "access", lambda path, mode: Path(path) != cache_dir and real_access(path, mode))
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_:
        main(["play", "--partner", "greedy", "--cache-dir", str(cache_dir), "--runs-dir", str(runs)])
    assert exit_.value.code == 2 and not runs.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not writable" in err[0]


@pytest.mark.slow
def test_training_on_a_disk_that_refuses_the_checkpoint_ends_with_one_line_and_no_half_checkpoint(tmp_path):
    out = tmp_path / "out"
    done = run_limited(["train", "--domain", "cube", "--layout", "easy_2a", "--steps", "512", "--out", str(out)], 3000, tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "cannot write" in line]
    assert len(said) == 1 and "params.msgpack" in said[0]
    assert not any(out.iterdir())  # no truncated params, no manifest claiming a checkpoint


def test_recording_the_commit_never_writes_the_repository(monkeypatch):
    """git status refreshes the index under index.lock unless optional locks are off; a process that
    dies there (a full disk, a kill) would leave the lock and break the user's next git command."""
    from proagent import checkout

    seen: list[dict[str, str]] = []
    real_run = subprocess.run

    def spy(args, **kwargs):
        seen.append(kwargs["env"])
        return real_run(args, **kwargs)

    monkeypatch.setattr(checkout.subprocess, "run", spy)
    assert checkout.git_state()[0] and checkout.git_commit() is not None
    assert len(seen) == 4 and all(env.get("GIT_OPTIONAL_LOCKS") == "0" for env in seen)
