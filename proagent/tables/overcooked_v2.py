"""The OvercookedV2 table, regenerated: the shipped V2 partners in self-play and cross-play, and
ProAgent with each of them (both seats), next to the V2 paper's Table 2.

RL block: every trained partner of each layout (partners/overcooked/<layout>/<name>, the same network)
plays every other and itself in one vmapped program (`proagent.training.crossplay`), ``rl_episodes``
episodes per ordered pair. SP is a partner with itself; XP is its mean with every *other* shipped
partner of the layout, both seats (cross-method here: the paper's XP pairs seeds of one method,
which needs several seeds per method: ``<method>_s<seed>`` folders are counted as the same method
and reported as "XP same method" when present). ProAgent block: ProAgent with each partner, with the
recipe-aware scripted chef (``recipe_greedy``: a teammate that shares neither ProAgent's knowledge
text nor an RL convention) and with itself, ``episodes`` per seat, one run folder per layout (each
layout has its own partners), all in the table's one run folder (``--resume`` finishes it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from pydantic import Field
from rich.console import Console

from envs.overcooked.presets import COORDINATION_LAYOUTS
from proagent.eval.paper_gap import Gap, gap_plot, summary_markdown
from proagent.eval.records import read_records
from proagent.eval.stats import MeanSE, mean_se
from proagent.numbers import format_published
from proagent.paths import PROJECT_ROOT, method_of
from proagent.tables.common import LLMSettings, Plan, page_out, play_grids, proagent_agent, write_page

SCRIPTED = ("recipe_greedy",)  # the scripted partners that play V2 kitchens
PAPER = PROJECT_ROOT / "data" / "overcooked_v2_paper_table2.json"


def rl_rows(layout: str, episodes: int, seed: int) -> list[dict]:
    """SP, XP (other partners) and XP (same method, other seeds) of each shipped partner of ``layout``."""
    from proagent.training.crossplay import zoo_crossplay

    try:
        xp = zoo_crossplay(layout, episodes=episodes, seed=seed)
    except (ValueError, FileNotFoundError):
        return []
    scores = np.asarray(xp.scores)  # (n, n, episodes)
    rows = []
    for i, name in enumerate(xp.names):
        others = [j for j in range(len(xp.names)) if j != i]
        same = [j for j in others if method_of(xp.names[j]) == method_of(name)]
        sp = mean_se(scores[i, i].tolist())
        cross, kin = mean_se(both_seats(scores, i, others)), mean_se(both_seats(scores, i, same))
        gap = sp.mean - cross.mean if sp.n and cross.n else None
        rows.append({"layout": layout, "name": name, "sp": sp, "xp": cross, "xp_same": kin, "gap": gap})
    return rows


def both_seats(scores: np.ndarray, i: int, partners: list[int]) -> list[float]:
    """Every episode of partner ``i`` with each of ``partners``, in seat 0 and in seat 1."""
    return [float(v) for j in partners for v in np.concatenate([scores[i, j], scores[j, i]])]


class Settings(LLMSettings):
    """The V2 coordination layouts, 50 RL episodes per ordered pair, one ProAgent episode per partner and seat."""

    layouts: list[str] = Field(default_factory=lambda: list(COORDINATION_LAYOUTS), min_length=1)
    episodes: int = Field(1, ge=1, description="ProAgent episodes per partner and seat")
    horizon: int = Field(400, ge=1, description="steps per ProAgent episode (the paper's 400)")
    rl_episodes: int = Field(50, ge=0, description="RL cross-play episodes per ordered pair (0: no RL block)")
    seed: int = Field(0, ge=0)
    skip_proagent: bool = False
    partners: list[str] = Field(default_factory=list, description="ProAgent's RL partners: these methods' best seed")


def plan(settings: Settings) -> Plan:
    """ProAgent's episodes (the RL cross-play block calls no model and is not counted)."""
    if settings.skip_proagent:
        return Plan(episodes=0, llm_episodes=0)
    n = sum(len(shipped(layout, settings.partners or None)) + len(SCRIPTED) + 1 for layout in settings.layouts)
    return Plan(episodes=n * 2 * settings.episodes, llm_episodes=n * 2 * settings.episodes, horizon=settings.horizon)


def run_proagent(settings: Settings, console: Console) -> list[Path]:
    """ProAgent with each layout's partners and itself: one run folder a layout (each layout has
    its own partners)."""
    return play_grids([layout_grid(settings, layout) for layout in settings.layouts], settings, console)


def layout_grid(settings: Settings, layout: str) -> dict:
    """ProAgent with the layout's shipped partners, the scripted ones and itself, both seats."""
    names = [*shipped(layout, settings.partners or None), *SCRIPTED, "proagent"]
    return {
        "name": f"overcooked-v2-{layout}", "agents": [proagent_agent(settings)], "partners": names,
        "layouts": [layout], "seats": [0, 1], "episodes": settings.episodes, "horizon": settings.horizon,
        "seed": settings.seed,
    }  # fmt: skip


def run(settings: Settings, console: Console) -> Path:
    """The RL block, then ProAgent's, written beside the paper's Table 2."""
    paper = json.loads(PAPER.read_text())
    rl_layouts = settings.layouts if settings.rl_episodes else []
    rows = [row for layout in rl_layouts for row in rl_rows(layout, settings.rl_episodes, settings.seed)]
    folders = [] if settings.skip_proagent else run_proagent(settings, console)
    out = page_out(settings, folders)
    reused = " (this page's run finished an earlier run folder with `--resume`)" if settings.resume else ""
    # ProAgent's model under the title, as every table names it, before any number can be read.
    model = "" if settings.skip_proagent else settings.model_line()
    text = (
        f"# OvercookedV2: shipped partners{'' if settings.skip_proagent else ' and ProAgent'}\n\n{model}"
        f"Regenerate: `{settings.command}`{reused}.\n\n"
        f"## RL partners ({settings.rl_episodes} episodes of 400 steps per ordered pair, mean ± standard error; "
        "paper: 10 seeds, mean ± standard deviation)\n\n"
        + (rl_table(rows, paper) if rows else "None played (`rl_episodes=0`) or none shipped for these layouts.")
        + "\n"
    )
    if rows:
        text += f"\n## Seeds per method (SP as above; a seed reaches the paper at {REACH}x its SP mean)\n\n"
        text += seed_table(rows, paper) + "\n"
        cells = method_gaps(rows, paper)
        out.parent.mkdir(parents=True, exist_ok=True)
        plot = gap_plot(cells, out.with_name(out.name + "_vs_paper.png"), "OvercookedV2: SP and XP")
        text += f"\n{summary_markdown(cells)}\n{GAP_NOTE}\n"
        text += f"\n![ours against the paper]({plot.name})\n" if plot else ""
    if folders:
        text += (
            f"\n## ProAgent with {settings.model_label()}, {settings.episodes} episode(s) of {settings.horizon} steps "
            f"per partner and seat\n\nRun folders: {', '.join(f'`{f.name}`' for f in folders)}.\n\n"
            + proagent_table(folders, settings.layouts)
            + "\n"
        )
    return write_page(out, text)


def proagent_table(folders: list[Path], layouts: list[str]) -> str:
    records = [r for folder in folders for r in read_records(folder / "episodes.jsonl")]
    lines = ["| layout | partner | seat 0 | seat 1 | both seats |", "|---|---|---|---|---|"]
    for layout in layouts:
        for partner in sorted({r.partner for r in records if r.layout == layout}):
            mine = [r for r in records if r.layout == layout and r.partner == partner]
            cells = [mean_se([r.score for r in mine if r.seat in seats]).text(1) for seats in ({0}, {1}, {0, 1})]
            lines.append(f"| {layout} | {partner} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _sd(pair: list | None) -> str:
    """The paper's mean and standard deviation as it printed them."""
    return f"{format_published(str(pair[0]), float(pair[1]))} (sd)" if pair else "-"


def rl_table(rows: list[dict], paper: dict) -> str:
    lines = [
        "| layout | partner | SP (ours) | XP vs other partners | XP same method | gap | paper SP | paper XP | "
        + "paper gap |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ref = paper["layouts"].get(r["layout"], {}).get(method_of(r["name"]))
        gap = "-" if r["gap"] is None else f"{r['gap']:.1f}"
        lines.append(
            f"| {r['layout']} | {r['name']} | {r['sp'].text(1)} | {r['xp'].text(1)} | {r['xp_same'].text(1)} | {gap} | "
            + " | ".join(_sd(ref[k]) if ref else "-" for k in range(3))
            + " |"
        )
    return "\n".join(lines)


PAPER_SEEDS = 10  # the paper's seeds per method: its ± is their standard deviation
GAP_NOTE = (
    "A cell here is a method on a layout: ours is the mean over our shipped seeds of each seed's SP (or XP "
    f"among seeds), the paper's over its {PAPER_SEEDS}. Both standard errors take the paper's seed standard "
    f"deviation as the spread of seeds (ours: sd/√(our seeds); the paper's: sd/√{PAPER_SEEDS}), since one to "
    "three shipped seeds give no spread of their own."
)


def by_method(rows: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """The RL rows by layout and method: a method's seeds together, in the rows' order."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["layout"], method_of(r["name"])), []).append(r)
    return groups


def method_gaps(rows: list[dict], paper: dict) -> list[Gap]:
    """Per layout and method, our seeds' SP (and XP among seeds, where two or more ship) against the
    paper's, each with the standard errors `GAP_NOTE` describes."""
    cells = []
    for (layout, method), seeds in by_method(rows).items():
        ref = paper["layouts"].get(layout, {}).get(method)
        for k, what, key in ((0, "SP", "sp"), (1, "XP", "xp_same")):
            means = [float(r[key].mean) for r in seeds if r[key].n]
            if ref and means:
                sd = float(ref[k][1])
                ours = MeanSE(n=len(means), mean=float(np.mean(means)), se=sd / math.sqrt(len(means)))
                cells.append(Gap(label=f"{layout} {method} {what}", ours=ours, paper_mean=float(ref[k][0]),
                                 paper_se=sd / math.sqrt(PAPER_SEEDS)))  # fmt: skip
    return cells


REACH = 0.9  # a seed "reaches" the paper when its SP is at least this share of the paper's SP mean


def seed_table(rows: list[dict], paper: dict) -> str:
    """Per layout and method: how many shipped seeds reach ``REACH`` x the paper's self-play, the
    best seed's share of it, and the seeds' cross-play with each other (mean of each seed's "XP
    same method" mean) next to the paper's XP, which pairs seeds of one method the same way."""
    lines = [
        f"| layout | method | seeds shipped | seeds >= {REACH}x paper SP | best SP / paper SP | XP among seeds | "
        + "paper XP |",
        "|---|---|---|---|---|---|---|",
    ]
    for (layout, method), seeds in by_method(rows).items():
        ref = paper["layouts"].get(layout, {}).get(method)
        sps = [r["sp"].mean for r in seeds if r["sp"].n]
        kin = [r["xp_same"].mean for r in seeds if r["xp_same"].n]
        reach = f"{sum(sp >= REACH * ref[0][0] for sp in sps)}" if ref and sps else "-"
        best = f"{round(max(sps) / ref[0][0], 2) + 0.0:.2f}x" if ref and sps and ref[0][0] > 0 else "-"  # never -0.00x
        among = f"{np.mean(kin):.1f} (n={len(kin)} seeds)" if kin else "- (one seed)"
        paper_xp = _sd(ref[1]) if ref else "-"
        lines.append(f"| {layout} | {method} | {len(seeds)} | {reach} | {best} | {among} | {paper_xp} |")
    return "\n".join(lines)


def shipped(layout: str, methods: list[str] | None = None) -> list[str]:
    """Every partner shipped for ``layout``, or with ``methods`` only each method's best seed by its
    manifest (``sp`` -> ``sp_s2`` on test_time_wide): a short run plays the partners worth meeting."""
    from proagent.training.partner import available_rl_partners, best_seed

    if methods is None:
        return available_rl_partners("overcooked", layout)
    chosen = (best_seed("overcooked", layout, method) for method in methods)
    return [name for name in chosen if name is not None]
