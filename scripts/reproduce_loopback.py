"""Run a `proagent reproduce` target against the loopback test double: to measure its LLM use per
episode for `--dry-run` (``--measure``: the ``[targets.measured]`` block of
data/reproduce_targets.toml) and to write the shipped reference pages (``--results DIR``:
``DIR/<target>_loopback.md``, or ``DIR/<target>.md`` for a target no LLM plays in, the names
docs/results/README.md gives every page).

    PYTHONPATH=. python scripts/reproduce_loopback.py proagent-table1 --measure --partners sp --episodes 1
    PYTHONPATH=. python scripts/reproduce_loopback.py yokai-table2 --results docs/results --episodes 2

It serves the tests' FakeChatServer with the target's world's scripted planner (the one ``--llm
scripted`` plays: code that answers from the grounding; no language model), whose replies report the usage litellm's tokenizer
counts for ``--tokenizer``'s model (the real prompts; the double's short answers), and runs
`proagent reproduce NAME` with the flags after the name, in this process. What this script adds to
the command is serving the double, which lives in tests/support and never in the library. The run
folders go to ``--runs-dir`` when given (and stay there: a kept page names them), otherwise to a
temporary folder removed at exit.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proagent.cli import main as proagent_main
from proagent.eval.manifest import load_manifest
from proagent.eval.records import read_records
from proagent.llm.litellm_backend import import_litellm
from proagent.runner.run_folder import RunFolder
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.cube import cube_answer
from tests.support.responders.macrafter import macrafter_answer
from tests.support.responders.overcooked import overcooked_answer
from tests.support.responders.yokai import yokai_answer

RESPONDERS = {
    "emcoop-topologies": cube_answer,
    "emcoop-macrafter": macrafter_answer,
    "yokai-table2": yokai_answer,
    "coop2-cube": cube_answer,
    "coop2-macrafter": macrafter_answer,
}
NO_LLM = frozenset({"interdependence-table1"})  # targets no LLM plays: no double to serve, no --llm to pass

DOUBLE = "made with the loopback test double (the worlds' scripted planners, `proagent/domains/<world>/scripted.py`, behind a test server), not an LLM"


def page_name(target: str) -> str:
    """The name (no suffix) of ``target``'s page made here: the target, then the model that played
    (``_loopback``), or the bare target where no LLM plays (the rule of docs/results/README.md)."""
    return target if target in NO_LLM else f"{target}_loopback"


@dataclass
class CountingServer(FakeChatServer):
    """The double, reporting each reply's usage as ``tokenizer``'s token counts."""

    tokenizer: str = "gpt-4o-mini"

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super().answer(body)
        litellm = import_litellm()
        prompt = litellm.token_counter(model=self.tokenizer, messages=body.get("messages", []))
        completion = litellm.token_counter(model=self.tokenizer, text=reply["choices"][0]["message"]["content"])
        reply["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return reply


def measured_block(runs: Path, tokenizer: str, command: str, earlier: frozenset[Path] = frozenset()) -> str:
    """The per-episode means of every seat's LLM use over the episodes of the run folders under
    ``runs`` (but those in ``earlier``: a kept folder's older runs) where some seat called the model
    (the ones a dry run counts as LLM episodes), as TOML."""
    folders = sorted(path.parent for path in episode_files(runs) - earlier)  # a table's grids sit in its own folder
    records = [r for run in folders for r in read_records(run / "episodes.jsonl") if r.team_llm_calls]
    if not records:
        return f"# no episode under {runs} called a model: the target plays no LLM agent"
    n = len(records)
    team = [
        (sum(s.llm_calls for s in r.seat_usage), sum(s.prompt_tokens for s in r.seat_usage),
         sum(s.completion_tokens for s in r.seat_usage))
        for r in records
    ]  # fmt: skip
    calls, prompt, completion = (round(sum(values) / n, 1) for values in zip(*team))
    # the steps per episode a dry run scales from: the runs' one horizon, when they set one
    horizons = {load_manifest(RunFolder(run)).config.horizon for run in folders}
    horizon = [f"horizon = {horizons.pop()}"] if len(horizons) == 1 and None not in horizons else []
    source = (
        f"loopback test double (no language model), every seat's use over {n} episodes of `{command}`; prompt tokens counted by litellm "
        f"for {tokenizer}, completion tokens are the double's short answers"
    )
    return "\n".join([
        "[targets.measured]",
        f"llm_calls = {calls}",
        f"prompt_tokens = {prompt}",
        f"completion_tokens = {completion}",
        f"episodes = {n}",
        *horizon,
        f"source = {json.dumps(source, ensure_ascii=False)}",
    ])  # fmt: skip


def episode_files(runs: Path) -> frozenset[Path]:
    """Every run's episode records under ``runs`` (a table's grids sit in its own folder)."""
    return frozenset(runs.rglob("episodes.jsonl"))


def inner_flags(rest: list[str], runs: Path, out: Path, double: list[str]) -> list[str]:
    """The flags `proagent reproduce` gets: the user's, then the run folder, the page and the
    double, and ``--progress off`` unless the user chose a progress mode (each flag once, so the
    command the page quotes is the one that ran)."""
    chose_progress = any(a == "--progress" or a.startswith("--progress=") for a in rest)
    progress = [] if chose_progress else ["--progress", "off"]
    return [*rest, "--runs-dir", str(runs), *progress, "--out", str(out), *double]


def cleaned(text: str, url: str, tmp: str) -> str:
    """``text`` without what differs every run and names this machine: the double's address, the temporary folder."""
    return text.replace(url, "<the double's url>").replace(tmp, "<temporary folder>")


def with_outer_command(text: str, regenerate: str, llm: bool) -> str:
    """A kept page with the command that makes it again: this script's (the inner `proagent
    reproduce` line names the double's address, which only this script serves), under its model line."""
    if not llm:
        return text
    line = (
        f"Regenerate this page: `{regenerate}` (it serves the loopback double and runs the `proagent reproduce` line "
        "below)."
    )
    lines = text.split("\n")
    at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith("Model:")), 1)
    return "\n".join([*lines[:at], "", line, *lines[at:]])


def results_page(body: str, regenerate: str, llm: bool, flags: list[str]) -> str:
    """The table page made on the double (``body``, `cleaned`), headed so that nobody reads it as a
    model's result. Not `with_outer_command`'s heading: a page kept with ``--out`` is the table's own
    page, whose model line already names the double, plus this script's command; a results page is a
    reference page, so it also carries the banner and the (tiny) settings it was made at."""
    title, _, rest = body.partition("\n")
    settings = f"`{shlex.join(flags)}`" if flags else "the target's own"
    if not llm:
        return (
            f"{title} (no LLM plays in this table)\n\n> Scripted and trained agents only: no language model and no "
            f"test double. Regenerate: `{regenerate}` (the inner `proagent reproduce` line below is what it runs). "
            f"Settings of this page: {settings}, on top of the target's setting (a tiny run).\n" + rest
        )
    return (
        f"{title} ({DOUBLE})\n\n"
        f"> **Not an LLM result.** This page was {DOUBLE}: its ProAgent numbers measure the framework and the "
        "double's convention, not a language model. Scripted and trained agents' numbers are real.\n>\n"
        f"> Regenerate: `{regenerate}` (the inner `proagent reproduce` line below is what it runs).\n>\n"
        f"> Settings of this page: {settings}, on top of the target's setting (a tiny run that fits minutes on two CPU "
        "cores, so the numbers are few and short; the target's full setting is what a model would be run at).\n" + rest
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("target")
    p.add_argument("--tokenizer", default="gpt-4o-mini", help="the model whose tokenizer counts the tokens")
    p.add_argument("--measure", action="store_true", help="print the [targets.measured] block")
    p.add_argument(
        "--results", type=Path, help="also write the page to DIR/<target>_loopback.md, headed as the double's"
    )
    p.add_argument(
        "--out", type=Path, help="where the table page goes (as reproduce's --out; default: a temporary folder)"
    )
    p.add_argument(
        "--runs-dir", type=Path, help="where the run folders go, kept (default: a temporary folder, removed at exit)"
    )
    args, rest = p.parse_known_args(argv)
    given = sys.argv[1:] if argv is None else argv
    responder = RESPONDERS.get(args.target, overcooked_answer)
    with tempfile.TemporaryDirectory() as tmp, CountingServer(responder=responder, tokenizer=args.tokenizer) as server:
        runs, out = args.runs_dir or Path(tmp) / "runs", args.out or Path(tmp) / "page" / page_name(args.target)
        runs.mkdir(parents=True, exist_ok=True)
        earlier = episode_files(runs)
        double = [] if args.target in NO_LLM else loopback_args(server.url)
        code = proagent_main(["reproduce", args.target, *inner_flags(rest, runs, out, double)])
        if code != 0:
            return code
        regenerate = "PYTHONPATH=. " + shlex.join(["python", "scripts/reproduce_loopback.py", *given])
        llm, page = args.target not in NO_LLM, out.with_suffix(".md")
        # The table's page as `proagent reproduce` wrote it, read and cleaned once: the kept page and the
        # results page are each headed from it (the results page never carries the kept page's heading too).
        kept = args.out is not None or args.results is not None
        body = cleaned(page.read_text(encoding="utf-8"), server.url, tmp) if kept else ""
        if args.out is not None:  # a page kept: the double's address and the temporary folders left out
            page.write_text(with_outer_command(body, regenerate, llm), encoding="utf-8")
        if args.measure:
            command = shlex.join(["proagent", "reproduce", args.target, *rest])
            print(measured_block(runs, args.tokenizer, command, earlier))
        if args.results is not None:
            write_results(args.results, out, args.target, results_page(body, regenerate, llm, rest))
    return 0


def write_results(folder: Path, out: Path, target: str, text: str) -> None:
    """The page (``text``) and the figures beside it, into ``folder``; figures keep their names, which
    begin with the page's (``out`` is named after the page unless the user gave ``--out``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for figure in out.parent.glob(f"{out.name}*"):
        if figure.suffix != ".md":
            (folder / figure.name).write_bytes(figure.read_bytes())
    (folder / f"{page_name(target)}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
