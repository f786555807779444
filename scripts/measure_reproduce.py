"""Measure a `proagent reproduce` target's LLM use per episode on the loopback test double, for
`--dry-run`'s estimates (the ``[targets.measured]`` block of data/reproduce_targets.toml).

    PYTHONPATH=. python scripts/measure_reproduce.py proagent-table1 --partners sp --episodes 1

It runs the target through `proagent reproduce` (any of its flags after the name narrow the grid)
against the tests' FakeChatServer with the Overcooked responder, whose replies here report the usage
litellm's tokenizer counts for ``--tokenizer``'s model (the real prompts; the double's short answers),
then reads the run's records and prints the per-episode means of the ProAgent seat's LLM calls and
tokens as a TOML block. Calls are the framework's own count; completion tokens are the double's, so a
model that reasons at length spends more: the block says so.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proagent.cli import main as proagent_main
from proagent.eval.records import read_records
from proagent.llm.litellm_backend import import_litellm
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer


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


def measured_block(run: Path, tokenizer: str, command: str) -> str:
    """The per-episode means over the run's ProAgent episodes, as TOML."""
    records = [r for r in read_records(run / "episodes.jsonl") if r.agent_kind == "proagent"]
    if not records:
        raise SystemExit(f"no ProAgent episode in {run}")
    n = len(records)
    calls, prompt, completion = (
        round(sum(values) / n, 1)
        for values in zip(*((r.llm_calls, r.prompt_tokens, r.completion_tokens) for r in records))
    )
    source = (
        f"loopback test double (no language model), {n} episodes of `{command}`; prompt tokens counted by litellm "
        f"for {tokenizer}, completion tokens are the double's short answers"
    )
    return "\n".join([
        "[targets.measured]",
        f"llm_calls = {calls}",
        f"prompt_tokens = {prompt}",
        f"completion_tokens = {completion}",
        f"episodes = {n}",
        f"source = {json.dumps(source, ensure_ascii=False)}",
    ])  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("--tokenizer", default="gpt-4o-mini", help="the model whose tokenizer counts the tokens")
    args, rest = p.parse_known_args(argv)
    with (
        tempfile.TemporaryDirectory() as runs,
        CountingServer(responder=overcooked_answer, tokenizer=args.tokenizer) as server,
    ):
        flags = [*rest, "--runs-dir", runs, "--progress", "off"]
        code = proagent_main(["reproduce", args.target, *flags, *loopback_args(server.url)])
        if code != 0:
            return code
        (run,) = Path(runs).iterdir()
        print(measured_block(run, args.tokenizer, " ".join(["proagent reproduce", args.target, *rest])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
