"""Measure the embedded model's latency per constrained decision, with and without prefix reuse.

Run: ``python benchmarks/embedded_prefix.py [--decisions N] [--threads T]``.

A decision here is what the agent does each planning step: a ~600-token
prompt (static rules + a changing state) and a short JSON answer (an analysis
of at most 80 characters and a plan from an enum).  Variants are interleaved so
that background load hits them alike; each round plays, after ``Llama.reset()``
(the KV cache forgotten):

- *cold*: the model's conversation state cache emptied too, so nothing can
  restore the prefix and the whole prompt is evaluated (the honest cold prefix);
- *cached*: the state cache kept, so it restores the shared prefix saved by an
  earlier call (what a new conversation costs in the product);

each followed by a *warm* call with a different state, where llama.cpp reuses
the KV cache of the shared prefix. Reported: cold / warm (the prefix's real
cost) and cached / warm (what is left of it with the state cache), medians of
the rounds' ratios with their spread, of the latency and of the prompt evaluation
alone (answers differ in length, which moves the latency ratio).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import time

from pydantic import BaseModel

from proagent.llm.embedded import EmbeddedModel
from proagent.llm.types import Completion, Message, StructuredOutput

PLANS = ["fetch_onion", "put_onion_in_pot", "fetch_dish", "pick_up_soup", "deliver_soup", "wait"]
SCHEMA = StructuredOutput(
    name="decision",
    json_schema={
        "type": "object",
        "properties": {"analysis": {"type": "string", "maxLength": 80}, "plan": {"type": "string", "enum": PLANS}},
        "required": ["analysis", "plan"],
        "additionalProperties": False,
    },
)
_RULE = (
    "Rule {i}: the kitchen is a grid; counters, onion dispensers, dish dispensers, pots and a serving window "
    "are fixed. A soup needs three onions in a pot, cooks for twenty steps, is plated with a dish and served."
)


def system_prompt(n_rules: int = 10) -> str:
    """A static, rules-heavy system prompt (~540 tokens with the default)."""
    rules = "\n".join(_RULE.format(i=i) for i in range(1, n_rules + 1))
    return f"You are chef 0 in Overcooked, cooperating with chef 1.\n{rules}\nAnswer with JSON only."


def state_prompt(step: int) -> str:
    onions = step % 4
    return f"Step {step}. Pot has {onions} onions. You hold nothing. Partner holds an onion. Choose a plan."


class Stats(BaseModel):
    n: int
    median_s: float
    mean_s: float
    min_s: float
    max_s: float
    prompt_tokens: float
    completion_tokens: float
    valid_json: int
    median_cpu_s: float


def _stats(runs: list[Completion], cpu: list[float]) -> Stats:
    lat = [c.latency_s for c in runs]
    return Stats(
        n=len(runs),
        median_s=statistics.median(lat),
        mean_s=statistics.fmean(lat),
        min_s=min(lat),
        max_s=max(lat),
        prompt_tokens=statistics.fmean(c.prompt_tokens for c in runs),
        completion_tokens=statistics.fmean(c.completion_tokens for c in runs),
        valid_json=sum(_is_valid(c.text) for c in runs),
        median_cpu_s=statistics.median(cpu),
    )


def _read_perf(model: EmbeddedModel) -> dict[str, float]:
    """llama.cpp's own counters for the last call: tokens evaluated and decode speed (then reset)."""
    lib = importlib.import_module("llama_cpp.llama_cpp")
    ctx = model.llama._ctx.ctx  # benchmark-only peek at the native context
    data = lib.llama_perf_context(ctx)
    lib.llama_perf_context_reset(ctx)
    return {
        "prompt_tokens_evaluated": data.n_p_eval,
        "prompt_eval_ms": data.t_p_eval_ms,
        "prompt_tok_per_s": 1000.0 * data.n_p_eval / max(data.t_p_eval_ms, 1e-9),
        "gen_tokens": data.n_eval,
        "gen_tok_per_s": 1000.0 * data.n_eval / max(data.t_eval_ms, 1e-9),
    }


def _is_valid(text: str) -> bool:
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(answer, dict) and answer.get("plan") in PLANS and len(answer.get("analysis", "")) <= 80


Pair = tuple[list[Completion], list[float]]
VARIANTS = ("cold", "warm_after_cold", "cached", "warm_after_cached")


async def run(decisions: int, threads: int | None) -> dict[str, Stats]:
    model = EmbeddedModel(n_threads=threads)
    started = time.perf_counter()
    await model.preload()
    print(f"load: {time.perf_counter() - started:.2f}s  model: {model.name}")
    system = Message(role="system", content=system_prompt())
    perf: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}

    async def decide(step: int, into: Pair, label: str | None) -> None:
        # Process CPU time is robust to other load on the machine; with --threads 1 (no
        # spinning worker threads) it approximates the latency on an idle machine.
        messages = [system, Message(role="user", content=state_prompt(step))]
        cpu_start = time.process_time()
        into[0].append(await model.generate(messages, structured=SCHEMA, max_tokens=160))
        into[1].append(time.process_time() - cpu_start)
        counters = _read_perf(model)
        if label is not None:
            perf[label].append(counters)

    await decide(999, ([], []), None)  # warm-up: grammar compile, first-touch of weights
    runs: dict[str, Pair] = {name: ([], []) for name in VARIANTS}
    for i in range(decisions):
        model.llama.reset()  # forget the KV cache ...
        model.reset_state_cache()  # ... and every saved state: the next call evaluates the whole prompt
        await decide(4 * i, runs["cold"], "cold")
        await decide(4 * i + 1, runs["warm_after_cold"], "warm_after_cold")
        model.llama.reset()  # the KV cache forgotten, the state cache kept: it may restore the prefix
        await decide(4 * i + 2, runs["cached"], "cached")
        await decide(4 * i + 3, runs["warm_after_cached"], "warm_after_cached")
    print("example answer:", runs["warm_after_cold"][0][-1].text)
    for label, rows in perf.items():
        print(f"llama.cpp perf {label:18s}", {k: round(statistics.median(r[k] for r in rows), 1) for k in rows[0]})
    _print_ratios(runs, perf)
    return {name: _stats(*pair) for name, pair in runs.items()}


def _print_ratios(runs: dict[str, Pair], perf: dict[str, list[dict[str, float]]]) -> None:
    """Each round's ratio against the warm call that followed it, median and spread: of the whole
    latency (what an agent waits; answers differ in length) and of llama.cpp's prompt-evaluation
    time alone (the prefix's cost, whatever the answer's length)."""
    pairs = (("cold", "warm_after_cold", "without state cache (cold / warm)"),
             ("cached", "warm_after_cached", "with state cache (cached / warm)"))  # fmt: skip
    for first, warm, label in pairs:
        latency = [a.latency_s / b.latency_s for a, b in zip(runs[first][0], runs[warm][0], strict=True)]
        prompt = [a["prompt_eval_ms"] / b["prompt_eval_ms"] for a, b in zip(perf[first], perf[warm], strict=True)]
        for what, ratios in (("latency", latency), ("prompt eval", prompt)):
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            print(f"prefix ratio {label:34s} {what:11s} median {statistics.median(ratios):5.2f}x  spread {spread}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=8)
    parser.add_argument("--threads", type=int, default=None, help="default: os.cpu_count()")
    args = parser.parse_args()
    print(f"cpu_count={os.cpu_count()} loadavg_before={os.getloadavg()[0]:.2f}")
    results = asyncio.run(run(args.decisions, args.threads))
    for name, stats in results.items():
        print(f"{name:16s} {stats.model_dump_json()}")
    print(f"loadavg_after={os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
