"""Measure what interleaving conversations costs the embedded model, and what a state cache saves.

Run: ``python benchmarks/embedded_interleave.py [--conversations K] [--decisions N] [--threads T]``.

Why: ``proagent eval`` keeps several episodes in flight (``--concurrency``), and a ProAgent pair
has two seats with different system prompts. One ``Llama`` object keeps one KV cache, the previous
call's, so when calls from K conversations alternate, every call re-evaluates its whole prompt
after the first few shared tokens. This benchmark runs the same K x N decisions four ways, in the
same process: one conversation after another (the prefix is reused) and round-robin (what K
episodes in flight do), each without and with ``EmbeddedModel``'s state cache (``state_cache_mb``,
`proagent.llm.embedded_cache`: the latest state of each conversation, restored before its call).
The first pair is the price of the cache where it cannot help (the main job: one conversation).
It prints wall time, prompt tokens evaluated and whether the answers are the same in all four.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from embedded_prefix import SCHEMA, state_prompt, system_prompt
from pydantic import BaseModel

from proagent.llm.embedded import EmbeddedModel
from proagent.llm.types import Message


class Variant(BaseModel):
    name: str
    wall_s: float
    prompt_tokens: int
    evaluated_tokens: int
    answers: list[str]


def _conversation_prompt(k: int, step: int, n_rules: int) -> list[Message]:
    system = f"Seat {k} of this kitchen. " + system_prompt(n_rules)  # differs after a few tokens, like two seats
    return [Message(role="system", content=system), Message(role="user", content=state_prompt(step))]


async def _run(model: EmbeddedModel, order: list[tuple[int, int]], n_rules: int, name: str) -> Variant:
    answers: dict[tuple[int, int], str] = {}
    prompt = evaluated = 0
    start = time.perf_counter()
    for k, step in order:
        completion = await model.generate(_conversation_prompt(k, step, n_rules), structured=SCHEMA, max_tokens=48)
        answers[(k, step)] = completion.text
        prompt += completion.prompt_tokens
        evaluated += completion.prompt_tokens - completion.reused_prompt_tokens
    wall = time.perf_counter() - start
    return Variant(
        name=name, wall_s=wall, prompt_tokens=prompt, evaluated_tokens=evaluated, answers=[answers[c] for c in sorted(answers)]
    )


async def main(conversations: int, decisions: int, threads: int, n_rules: int, cache_mb: int) -> list[Variant]:
    sequential = [(k, s) for k in range(conversations) for s in range(decisions)]
    interleaved = [(k, s) for s in range(decisions) for k in range(conversations)]
    plain = EmbeddedModel(n_threads=threads, state_cache_mb=0)
    cached = EmbeddedModel(n_threads=threads, state_cache_mb=cache_mb)
    await plain.preload()
    await cached.preload()
    await _run(plain, [(0, 99)], n_rules, "warm-up")  # first-call costs (grammar, buffers) out of the measure
    await _run(cached, [(0, 99)], n_rules, "warm-up")
    cached.reset_state_cache()
    variants = [
        await _run(plain, sequential, n_rules, "one after another, no state cache"),
        await _run(cached, sequential, n_rules, f"one after another, state cache {cache_mb} MB"),
        await _run(plain, interleaved, n_rules, "round-robin, no state cache"),
    ]
    cached.reset_state_cache()
    variants.append(await _run(cached, interleaved, n_rules, f"round-robin, state cache {cache_mb} MB"))
    return variants


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=4)
    parser.add_argument("--decisions", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rules", type=int, default=25, help="rules in the system prompt (25: ~1,400 tokens)")
    parser.add_argument("--cache-mb", type=int, default=1024)
    args = parser.parse_args()
    variants = asyncio.run(main(args.conversations, args.decisions, args.threads, args.rules, args.cache_mb))
    base = variants[0].wall_s
    for v in variants:
        print(
            f"{v.name:40s} {v.wall_s:7.1f} s  x{v.wall_s / base:4.2f}  prompt tokens {v.prompt_tokens:,}"
            f"  evaluated {v.evaluated_tokens:,}"
        )
    same = all(v.answers == variants[0].answers for v in variants)
    print(json.dumps({"same_answers": same, "conversations": args.conversations, "decisions": args.decisions}))
