"""``--feedback`` through `proagent eval` on MA-Crafter with the loopback double: the run's config
records it, the leader's directives carry the world's snapshot in the trace, the followers'
prompts show it labelled as environment feedback, and without the option no prompt has it."""

from __future__ import annotations

import json
from pathlib import Path

from proagent.cli import main
from proagent.maeil.talk import FEEDBACK_LABEL
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.macrafter import macrafter_answer


def _eval(tmp_path: Path, feedback: bool) -> tuple[Path, list[str]]:
    argv = [
        "eval", "--domain", "macrafter", "--name", f"fb-{feedback}", "--layouts", "easy_2a", "--partners", "proagent",
        "--seats", "0", "--topologies", "centralized", "--episodes", "1", "--horizon", "4", "--progress", "off",
        "--trace", "--runs-dir", str(tmp_path),
    ]  # fmt: skip
    with FakeChatServer(responder=macrafter_answer) as fake:
        assert main([*argv, *(["--feedback"] if feedback else []), *loopback_args(fake.url)]) == 0
        prompts = [m["content"] for r in fake.requests for m in r["body"]["messages"] if m["role"] == "user"]
    (folder,) = tmp_path.glob(f"*-fb-{feedback}")
    return folder, prompts


def _messages(folder: Path) -> list[dict]:
    lines = [json.loads(line) for line in (folder / "trace.jsonl").read_text().splitlines()]
    return [c for line in lines for c in line.get("cognition", []) if c["kind"] == "message"]


def test_feedback_rides_on_the_directives_and_reaches_the_followers_labelled(tmp_path: Path) -> None:
    folder, prompts = _eval(tmp_path, feedback=True)
    assert json.loads((folder / "config.json").read_text())["config"]["feedback"] is True
    directives = [m for m in _messages(folder) if m["type"] == "directive"]
    assert directives and all(m["feedback"].startswith(f"step {m['t_env']}; agent 0 at (") for m in directives)
    assert all("next task: collect" in m["feedback"] for m in directives)
    assert all("feedback" not in m for m in _messages(folder) if m["type"] != "directive")
    shown = [p for p in prompts if FEEDBACK_LABEL in p]
    assert shown and all("next task: collect" in p.split(FEEDBACK_LABEL, 1)[1] for p in shown)


def test_without_the_option_no_message_or_prompt_carries_it(tmp_path: Path) -> None:
    folder, prompts = _eval(tmp_path, feedback=False)
    assert json.loads((folder / "config.json").read_text())["config"]["feedback"] is False
    assert _messages(folder) and all("feedback" not in m for m in _messages(folder))
    assert prompts and not any(FEEDBACK_LABEL in p or "next task: collect" in p for p in prompts)
