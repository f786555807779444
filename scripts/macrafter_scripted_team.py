"""How often MA-Crafter's scripted team (the ``tech`` partner in every seat) reaches iron.

    python scripts/macrafter_scripted_team.py                                  # medium_3a and 10 random medium worlds
    python scripts/macrafter_scripted_team.py --scenarios medium_3a --seeds 10 --horizon 300

For each scenario and episode seed it plays one episode through the core runner and reports
whether any iron was collected, the step of the first iron unit, the units of iron and the team
score; it prints a Markdown table (the one in docs/macrafter_agents.md) and the iron rate. A named
scenario is one fixed world, so its episodes differ only by the env's randomness (saplings);
``random:medium:<seed>`` worlds vary the map itself.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass

from envs.macrafter import CrafterEventKind
from proagent.domains import get_domain
from proagent.runner.episode import run_episode


@dataclass(frozen=True)
class Outcome:
    scenario: str
    seed: int
    first_iron: int | None
    iron: float
    score: float


def play(scenario: str, seed: int, horizon: int) -> Outcome:
    domain = get_domain("macrafter")
    env = domain.make_env(scenario, horizon)
    team = [domain.make_partner("tech", env) for _ in range(env.num_agents)]
    lines: list[dict] = []
    record = asyncio.run(run_episode(env, domain, team, 0, seed, 0, trace=lines.append))
    iron_steps = [
        e["step"]
        for line in lines
        for e in line["events"]
        if e["kind"] == CrafterEventKind.COLLECT.value and e["item"] == "iron"
    ]
    first = min(iron_steps) if iron_steps else None
    return Outcome(scenario, seed, first, record.domain_metrics["iron_collected"], record.score)


def table(outcomes: list[Outcome]) -> str:
    rows = [
        "| scenario | seed | iron reached | first iron at step | iron units | team score |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        first = "-" if o.first_iron is None else str(o.first_iron)
        rows.append(
            f"| {o.scenario} | {o.seed} | {'yes' if o.iron > 0 else 'no'} | {first} | {o.iron:g} | {o.score:g} |"
        )
    reached = sum(o.iron > 0 for o in outcomes)
    rows.append(f"\nIron reached in {reached} of {len(outcomes)} episodes.")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--scenarios", default="medium_3a,random:medium:{seed}", help="comma-separated; {seed} is the episode seed"
    )
    parser.add_argument("--seeds", type=int, default=10, help="episodes per scenario (seeds 0..n-1)")
    parser.add_argument("--horizon", type=int, default=300)
    args = parser.parse_args(argv)
    outcomes = [
        play(spec.format(seed=seed), seed, args.horizon)
        for spec in args.scenarios.split(",")
        for seed in range(args.seeds)
    ]
    sys.stdout.write(table(outcomes) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
