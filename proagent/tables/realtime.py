"""Score against the thinking budget: how much of a cooperation result survives when the world does
not wait for the model (`proagent.agent.clock`).

Cells: layouts x partners x clocks, where the clocks are ``turns`` (the world waits: the
limit of an unbounded budget) and ``tokens:N`` for each N of ``budgets`` (the world advances one step
for every N tokens a decision reads and writes, RealtimeGym's hardware-agnostic time), each with the
``fallback`` while a decision is under way. Overcooked's counter_circuit plays trained ZSC partners
(``cole``, ``sp``), OvercookedV2's grounded_coord_simple ``sp`` and ``fcp`` (no ``cole`` ships for
V2), a two-agent CUBE team the scripted pusher and a trained IPPO partner. Each layout is one
evaluation grid (its run folder has every record and report); the page is written
from their records: score and the clock's own columns (stale, idle and fallback steps, decisions per
100 steps, steps and tokens per decision) per cell, and one figure of score against the budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from rich.console import Console

from proagent.agent.clock import ClockFallback
from proagent.eval.plots import new_figure
from proagent.eval.records import EvalRecord, read_records
from proagent.eval.stats import MeanSE, mean_se, metric_value
from proagent.tables.common import LLMSettings, Plan, page_out, play_grids, proagent_agent, write_page

GRIDS = ("classic", "v2", "cube")  # Overcooked's classic layout, an OvercookedV2 layout, a CUBE team
GRID_TITLES = {"classic": "Overcooked", "v2": "OvercookedV2", "cube": "CUBE"}
COLUMNS = (
    ("score", "score"),
    ("clock_stale_steps", "stale steps"),
    ("clock_idle_steps", "idle steps"),
    ("clock_fallback_steps", "fallback steps"),
    ("decisions_per_100_steps", "decisions / 100 steps"),
    ("decision_steps_mean", "steps / decision"),
    ("tokens_per_decision", "tokens / decision"),
)
TURNS = "turns"
# What the two closest studies published, in words (no number of theirs is copied: their games,
# partners and clocks are not these, so a number beside ours would invite a false comparison).
FINDINGS = (
    "DPT-Agent (dual process theory for real-time simultaneous human-AI collaboration) plays a real-time "
    "Overcooked whose game runs on a wall clock whatever the agent does: a fast System 1 (a finite-state machine "
    "with code-as-policy) acts every frame while a slow System 2 (the language model, with theory of mind and "
    "asynchronous reflection) revises its plan; it reports that agents made of a language model alone, "
    "reasoning models included, lose score to their own latency, and that the two-speed design does better. "
    "RealtimeGym (with its AgileThinker agent) measures time in tokens instead of seconds, so that the result does "
    "not depend on the hardware: the environment advances one step for every so many tokens the model produces, "
    "in Freeway, Snake and Overcooked, and it reports that reasoning models fall behind as that budget tightens "
    "while reactive models fail on the tasks that need planning, and that running a reactive and a planning "
    "thread together keeps more of the score under time pressure. Neither pairs the agent with trained "
    "zero-shot-coordination partners; the rows above do (`cole`, `sp`), with ProAgent's skill controller "
    "standing in for a fast system only through the `continue` and `scripted` fallbacks "
    "(`--clock-fallback`).\n"
)


class Settings(LLMSettings):
    """A grid small enough for a few minutes on the scripted planner: one episode per cell, seat 0."""

    episodes: int = Field(1, ge=1, description="episodes per cell")
    horizon: int | None = Field(150, ge=1, description="steps per episode (every world)")
    seed: int = Field(0, ge=0, description="episode i plays seed + i")
    budgets: list[int] = Field(default_factory=lambda: [600, 250, 100], min_length=1, description="N of each tokens:N")
    fallback: ClockFallback = Field("idle", description="what the agent does while a decision is under way")
    grids: list[Literal["classic", "v2", "cube"]] = Field(default_factory=lambda: list(GRIDS), min_length=1)
    classic_layout: str = "counter_circuit"
    classic_partners: list[str] = Field(default_factory=lambda: ["cole", "sp"], min_length=1)
    v2_layout: str = "grounded_coord_simple"
    v2_partners: list[str] = Field(
        default_factory=lambda: ["sp", "fcp"], min_length=1, description="no cole ships for V2"
    )
    cube_layout: str = "easy_2a"
    cube_partners: list[str] = Field(default_factory=lambda: ["pusher", "ippo_shared"], min_length=1)
    trace: bool = False


def clocks(settings: Settings) -> dict[str, str]:
    """Agent label -> its clock: turns first, then the budgets from the most generous."""
    return {TURNS: TURNS, **{f"tokens-{n}": f"tokens:{n}" for n in sorted(set(settings.budgets), reverse=True)}}


def cells_of(settings: Settings, name: str) -> tuple[str, str, list[str]]:
    """A grid's world, layout and partners."""
    return {
        "classic": ("overcooked", settings.classic_layout, settings.classic_partners),
        "v2": ("overcooked", settings.v2_layout, settings.v2_partners),
        "cube": ("cube", settings.cube_layout, settings.cube_partners),
    }[name]


def grids(settings: Settings) -> list[dict]:
    """One evaluation grid per world and layout: an agent per clock, each partner, seat 0."""
    out = []
    for name in dict.fromkeys(settings.grids):
        world, layout, partners = cells_of(settings, name)
        agents = [
            {
                **proagent_agent(settings),
                "label": label,
                "clock": clock,
                "clock_fallback": settings.fallback if clock != TURNS else "idle",
            }
            for label, clock in clocks(settings).items()
        ]
        out.append({
            "name": f"realtime-{name}", "domain": world, "agents": agents, "partners": partners, "layouts": [layout],
            "seats": [0], "episodes": settings.episodes, "seed": settings.seed, "trace": settings.trace,
            **({"horizon": settings.horizon} if settings.horizon else {}),
        })  # fmt: skip
    return out


def plan(settings: Settings) -> Plan:
    n = sum(len(g["agents"]) * len(g["layouts"]) * len(g["partners"]) * settings.episodes for g in grids(settings))
    return Plan(episodes=n, llm_episodes=n, horizon=settings.horizon)


def run(settings: Settings, console: Console) -> Path:
    """Play (or finish) the grids, then write the page and its figure."""
    steps = settings.horizon or "each layout's own"
    folders = play_grids(grids(settings), settings, console)
    names = list(dict.fromkeys(settings.grids))
    records = {GRID_TITLES[n]: read_records(f / "episodes.jsonl") for n, f in zip(names, folders)}
    out = page_out(settings, folders)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure = score_figure(
        records, list(clocks(settings)), out.with_name(out.name + "_score.png"), settings.model_label()
    )
    text = (
        "# Score against the thinking budget: the world does not wait\n\n"
        + settings.model_line(f"Token counts: {token_note(settings.llm)}.")
        + f"Regenerate: `{settings.command}`"
        f"{' (this page finished an earlier run folder with `--resume`)' if settings.resume else ''}; "
        f"run folders {', '.join(f'`{f.name}`' for f in folders)}. Seat 0, {steps} steps per episode, "
        f"{settings.episodes} episode(s) per cell from seed {settings.seed}; mean ± standard error over "
        f"episodes (none below n = 2). `turns`: the world waits for every decision; `tokens-N`: `--clock tokens:N`, "
        f"one world step per N tokens a decision reads and writes; while a decision is under way the agent's "
        f"fallback is `{settings.fallback}`, and partners act every step.\n\n"
        + table(records, list(clocks(settings)))
        + f"\n\n![score against the thinking budget]({figure.name})\n\n"
        + "## Beside the published findings\n\n"
        + FINDINGS
        + other_model(settings)
    )  # fmt: skip
    return write_page(out, text)


def other_model(settings: Settings) -> str:
    """Where the page's other version comes from: the embedded model's, or the scripted planner's."""
    from proagent.llm.scripted import is_scripted

    if is_scripted(settings.llm):
        return (
            "\nThe embedded model's version of this page (a language model's latency and token counts) is made by "
            "`proagent reproduce realtime --runs-dir runs --out docs/results/realtime_embedded` "
            "(`realtime_embedded.md` beside this page, where it was made).\n"
        )
    command = "proagent reproduce realtime --llm scripted --runs-dir runs --out docs/results/realtime_scripted"
    return f"\nThe scripted planner's version: `{command}`.\n"


def token_note(llm: str | None) -> str:
    """How the records' tokens were counted, so a budget is read against the right counts."""
    from proagent.llm.scripted import describe_model

    return describe_model(llm or "embedded").token_count


def tokens_per_decision(record: EvalRecord) -> float | None:
    return (record.prompt_tokens + record.completion_tokens) / record.decisions if record.decisions else None


def cell_stat(records: list[EvalRecord], metric: str) -> MeanSE:
    values = [tokens_per_decision(r) if metric == "tokens_per_decision" else metric_value(r, metric) for r in records]
    return mean_se([v for v in values if v is not None])


def cells(records: dict[str, list[EvalRecord]], labels: list[str]) -> list[tuple[str, str, str, str, list[EvalRecord]]]:
    """(world, layout, partner, clock label, its records) in page order; empty cells left out."""
    out = []
    for world, found in records.items():
        for layout in dict.fromkeys(r.layout for r in found):
            for partner in dict.fromkeys(r.partner for r in found if r.layout == layout):
                for label in labels:
                    cell = [r for r in found if (r.layout, r.partner, r.agent) == (layout, partner, label)]
                    if cell:
                        out.append((world, layout, partner, label, cell))
    return out


def table(records: dict[str, list[EvalRecord]], labels: list[str]) -> str:
    """Per world, layout, partner and clock: each column's mean ± se (n=…); `turns` has no clock columns."""
    lines = [
        "| world | layout | partner | clock | n | " + " | ".join(t for _, t in COLUMNS) + " |",
        "|" + "---|" * (5 + len(COLUMNS)),
    ]
    for world, layout, partner, label, cell in cells(records, labels):
        stats = [cell_stat(cell, m) for m, _ in COLUMNS]
        lines.append(
            f"| {world} | {layout} | {partner} | {label} | {len(cell)} | " + " | ".join(s.text(1) for s in stats) + " |"
        )
    return "\n".join(lines)


def score_figure(records: dict[str, list[EvalRecord]], labels: list[str], path: Path, model: str) -> Path:
    """Score (mean) against the clock: one panel per world and layout (their scores are on different
    scales), one line per partner."""
    panels: dict[str, dict[str, dict[str, float]]] = {}
    for world, layout, partner, label, cell in cells(records, labels):
        panels.setdefault(f"{world}: {layout}", {}).setdefault(partner, {})[label] = cell_stat(cell, "score").mean
    figure = new_figure(3.6 * max(1, len(panels)), 3.8)
    axes = figure.subplots(1, max(1, len(panels)), squeeze=False)[0]
    for ax, (title, series) in zip(axes, panels.items()):
        for partner, points in series.items():
            xs = [i for i, label in enumerate(labels) if label in points]
            ax.plot(xs, [points[labels[i]] for i in xs], marker="o", label=partner)
        ax.set_xticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("score (mean)")
    figure.suptitle(f"Score against the thinking budget (left: the world waits)\n{model.replace('`', '')}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path
