"""Yōkai Table 2, regenerated: agents in self-play and cross-play with the paper's columns, beside
the paper's Table 2 (2-player 9C), and the cross-play matrices as heatmaps.

Every name in ``agents`` plays every name (itself included) in both seats in one evaluation run
(``episodes`` games per ordered pair and seat, seeds ``seed`` on). A name is a scripted partner of
the world, ``proagent`` (the LLM agent, with ``--llm``) or a trained partner the world ships
(``partners/yokai/<layout>/<name>/``). SP is a name with itself; XP its games with every *other*
name, both seats: cross-play between different conventions. Where ``agents`` holds several seeds
of one trained method (``sp_pointer``, ``sp_pointer_s1``: ``proagent.paths.method_of``), "XP seeds"
is each one's games with its method's other seeds: the paper's inter-seed XP. R is eq. 4 (the
record's score); SEE, EE and WEE are percentages; WEE = P(win | EE) counts only the games that
ended early (its n). Writes ``<out>.md``, ``<out>.csv`` (one line per agent, setting and metric:
mean, se, n) and ``<out>_xp_<metric>.png``.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from pydantic import Field
from rich.console import Console

from proagent.domains import get_domain
from proagent.eval.paper_gap import Gap, gap_plot, summary_markdown
from proagent.eval.records import EvalRecord, read_records
from proagent.eval.stats import MeanSE, metric_stat
from proagent.paths import PROJECT_ROOT, method_of, partner_dir
from proagent.tables.common import LLMSettings, Plan, TableError, agent_fields, page_out, play_grids, write_page
from proagent.training.algorithms.other_play import OtherPlaySettings
from proagent.training.checkpoint import Manifest, load_manifest
from proagent.world.types import DomainInputError

DOMAIN = get_domain("yokai")
LLM = "proagent"
PAPER = PROJECT_ROOT / "data" / "yokai_paper_table2.json"
PAPER_GROUPS = PROJECT_ROOT / "data" / "yokai_paper_table4.json"  # OP with a part of its symmetry group
# (metric, column, in percent): the paper's five columns first, then the rest of the record's metrics.
PAPER_COLUMNS = (("score", "R", False), ("early_win", "SEE", True), ("early_end", "EE", True),
                 ("win_if_early", "WEE", True), ("length", "LEN", False))  # fmt: skip
MORE_COLUMNS = (("win", "win %", True), ("game_score", "S (eq. 1)", False), ("hints_used", "hints", False),
                ("hints_correct", "correct", False), ("hints_wrong", "wrong", False))  # fmt: skip
HEATMAPS = (("score", "R (eq. 4)"), ("early_win", "SEE %"))
SEED_XP = "XP seeds"
GAP_NOTE = (
    "Cells: every agent's XP R against the humans' (people with strangers, the paper's cross-play bar); a trained "
    "agent's SP and XP R also against the row of the recipe its manifest records (Other-Play with a part of its "
    "symmetry group: Table 4's; our XP is with every other agent here, the paper's with other seeds of one "
    "method). z uses our standard error over games and the paper's over its seeds."
)


def kind_of(name: str, layout: str) -> str:
    """Which sort of agent a name is: the LLM agent, a trained (RL) partner, or a scripted one."""
    from proagent.training.partner import available_rl_partners

    if name == LLM:
        return "LLM"
    return "RL" if "/" in name or name in available_rl_partners("yokai", layout) else "scripted"


def paper_row(manifest: Manifest) -> str | None:
    """The paper's row a trained partner's recipe belongs to, read from what it was trained with
    (its manifest), not from its name: Other-Play by its symmetry group (the full group is Table 2's
    OP, a part of it Table 4's), self-play or IPPO with the paper's high-entropy settings HE, other
    self-play SP; None for a method the paper does not train."""
    if manifest.algorithm == "op":
        details = (manifest.model_extra or {}).get("details") or {}
        group = OtherPlaySettings.model_validate(details.get("settings") or {}).group or "colour_rotation"
        by_group = {row["group"]: method for method, row in paper_rows().items() if "group" in row}
        return by_group.get(group, "OP")
    if manifest.algorithm in ("sp", "ippo"):
        # self-play records its PPO config whole; ippo, as every algorithm of the program, its overrides under "ppo"
        ppo = manifest.train_config if manifest.algorithm == "sp" else manifest.train_config.get("ppo", {})
        high_entropy = paper_rows()["HE"]["ppo"]
        return "HE" if all(ppo.get(k) == v for k, v in high_entropy.items()) else "SP"
    return None


def paper_row_of(name: str, layout: str) -> str | None:
    """``paper_row`` of a trained partner named as the table names it; None for any other agent."""
    if kind_of(name, layout) != "RL":
        return None
    return paper_row(load_manifest(Path(name) if "/" in name else partner_dir("yokai", layout, name)))


def check_names(names: Sequence[str], layout: str) -> None:
    """Every name plays on ``layout``: TableError naming the ones that do not and what would."""
    try:
        env = DOMAIN.make_env(layout, DOMAIN.default_horizon(layout))
    except DomainInputError as exc:
        raise TableError(str(exc)) from exc
    known = [*DOMAIN.partner_names(env), LLM]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise TableError(
            f"unknown agent(s) {', '.join(map(repr, unknown))} for yokai {layout}; known: {', '.join(known)}"
        )
    if len(set(names)) != len(names):
        raise TableError(f"--agents names an agent twice: {','.join(names)}")


class Settings(LLMSettings):
    """The Yōkai table's settings: the paper's 100 games per ordered pair and seat by default."""

    agents: list[str] = Field(default_factory=lambda: ["careful", "hint_reader", "random"], min_length=1)
    layout: str = "9c_2p"
    episodes: int = Field(100, ge=1, le=10_000)
    seed: int = Field(0, ge=0, le=1_000_000)


def plan(settings: Settings) -> Plan:
    """Every agent with every agent, both seats; the games with ProAgent in either seat cost."""
    n = len(settings.agents)
    per_agent = n * 2 * settings.episodes
    with_llm = per_agent + (n - 1) * 2 * settings.episodes  # as the agent, and as the others' partner
    return Plan(episodes=n * per_agent, llm_episodes=with_llm if LLM in settings.agents else 0)


def grid(settings: Settings) -> dict:
    """Every name with every name, both seats, as one evaluation grid."""
    names = settings.agents
    agents = [{"kind": n, **(agent_fields(settings) if n == LLM else {})} for n in names]
    return {
        "name": f"yokai-table-{settings.layout}", "domain": "yokai", "agents": agents, "partners": names,
        "layouts": [settings.layout], "seats": [0, 1], "episodes": settings.episodes, "seed": settings.seed,
    }  # fmt: skip


def stat(records: Sequence[EvalRecord], metric: str, percent: bool) -> MeanSE:
    """Mean ± se of ``metric`` over ``records`` (only those that have it), in percent for a rate."""
    s = metric_stat(records, metric)
    if not percent or s.mean is None:
        return s
    return MeanSE(n=s.n, mean=100 * s.mean, se=None if s.se is None else 100 * s.se)


def cell(s: MeanSE, percent: bool) -> str:
    """The one formatter's ``mean ± se (n=…)``; "–" where no game has the metric (WEE without an early end)."""
    return "–" if s.n == 0 else s.text(0 if percent else 1)


def by_setting(records: Sequence[EvalRecord], name: str, names: Sequence[str]) -> dict[str, list[EvalRecord]]:
    """``name``'s games with itself (SP) and with every other agent (XP), in both seats; and, where
    ``names`` holds other seeds of its method, its games with those (the paper's XP, "XP seeds")."""
    mine = [r for r in records if r.agent == name]
    settings = {"SP": [r for r in mine if r.partner == name], "XP": [r for r in mine if r.partner != name]}
    seeds = seed_siblings(name, names)
    if seeds:
        settings[SEED_XP] = [r for r in mine if r.partner in seeds]
    return settings


def seed_siblings(name: str, names: Sequence[str]) -> list[str]:
    """The other seeds of ``name``'s method among ``names`` (``sp_pointer_s1`` for ``sp_pointer``)."""
    return [n for n in names if n != name and method_of(n) == method_of(name)]


def seeds_table(records: Sequence[EvalRecord], names: Sequence[str], layout: str) -> str:
    """The paper's XP columns over each agent's games with its method's other seeds; "" if no
    agent here has a sibling seed."""
    rows = [name for name in names if seed_siblings(name, names)]
    if not rows:
        return ""
    head = [f"{SEED_XP} {col}" for _, col, _ in PAPER_COLUMNS]
    lines = ["| kind | agent | with | " + " | ".join(head) + " |", "|---|---|---|" + "---|" * len(head)]
    for name in rows:
        games = by_setting(records, name, names)[SEED_XP]
        cells = [cell(stat(games, m, p), p) for m, _, p in PAPER_COLUMNS]
        with_ = ", ".join(seed_siblings(name, names))
        lines.append(f"| {kind_of(name, layout)} | {name} | {with_} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ours_table(records: Sequence[EvalRecord], names: Sequence[str], layout: str) -> str:
    """The paper's layout: one row per agent, SP columns then XP columns."""
    head = [f"{setting} {col}" for setting in ("SP", "XP") for _, col, _ in PAPER_COLUMNS]
    lines = ["| kind | agent | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    for name in names:
        games = by_setting(records, name, names)
        cells = [cell(stat(games[s], m, p), p) for s in ("SP", "XP") for m, _, p in PAPER_COLUMNS]
        lines.append(f"| {kind_of(name, layout)} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def more_table(records: Sequence[EvalRecord], names: Sequence[str], layout: str) -> str:
    """The record's other metrics (win, eq. 1's score, the hints) per agent and setting."""
    lines = [
        "| kind | agent | setting | " + " | ".join(c for _, c, _ in MORE_COLUMNS) + " |",
        "|---|---|---|" + "---|" * len(MORE_COLUMNS),
    ]
    for name in names:
        for setting, games in by_setting(records, name, names).items():
            cells = [cell(stat(games, m, p), p) for m, _, p in MORE_COLUMNS]
            lines.append(f"| {kind_of(name, layout)} | {name} | {setting} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paper_rows() -> dict[str, dict]:
    """The paper's rows by method: Table 2's and Table 4's (OP with a part of its group)."""
    rows = [*json.loads(PAPER.read_text())["rows"], *json.loads(PAPER_GROUPS.read_text())["rows"]]
    return {r["method"]: r for r in rows}


def paper_table(path: Path = PAPER) -> str:
    """A table of the paper for 2-player 9C (Table 2, or Table 4 from its file), as printed."""
    paper = json.loads(path.read_text())
    head = [f"{setting} {col}" for setting in ("SP", "XP") for col in paper["columns"]]
    lines = ["| method | memory | " + " | ".join(head) + " |", "|---|---|" + "---|" * len(head)]
    lines += [f"| {r['method']} | {r['memory']} | " + " | ".join([*r["sp"], *r["xp"]]) + " |" for r in paper["rows"]]
    return paper["source"] + ".\n\n" + "\n".join(lines)


def paper_r(printed: str) -> tuple[float, float] | None:
    """The paper's "mean ± se" as numbers; None where it printed "-"."""
    mean, sep, se = printed.partition("±")
    return (float(mean), float(se)) if sep else None


def paper_gaps(records: Sequence[EvalRecord], names: Sequence[str], layout: str) -> list[Gap]:
    """R (eq. 4) against the paper's: every agent's XP against the humans' (people meeting
    strangers, the cross-play bar), and a trained agent's SP and XP against its recipe's row
    (``paper_row``; the paper's XP pairs seeds of one method, ours every other agent, and "XP
    seeds" the agent's method's other seeds here, like the paper's)."""
    rows = paper_rows()
    cells = []
    for name in names:
        games = by_setting(records, name, names)
        references = [("XP", "H", "xp")]
        method = paper_row_of(name, layout)
        if method is not None:
            references = [("SP", method, "sp"), ("XP", method, "xp"), *references]
            references += [(SEED_XP, method, "xp")] if SEED_XP in games else []
        for setting, row, side in references:
            theirs = paper_r(rows[row][side][0])
            ours = stat(games[setting], "score", False)
            if theirs is not None and ours.n:
                cells.append(
                    Gap(label=f"{name} {setting} vs {row}", ours=ours, paper_mean=theirs[0], paper_se=theirs[1])
                )
    return cells


def write_csv(records: Sequence[EvalRecord], names: Sequence[str], layout: str, path: Path) -> None:
    with path.open("w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["kind", "agent", "setting", "metric", "mean", "se", "n"])
        for name in names:
            for setting, games in by_setting(records, name, names).items():
                for metric, _, percent in (*PAPER_COLUMNS, *MORE_COLUMNS):
                    s = stat(games, metric, percent)
                    out.writerow(
                        [kind_of(name, layout), name, setting, metric + (" %" if percent else ""), s.mean, s.se, s.n]
                    )


def heatmap(records: Sequence[EvalRecord], names: Sequence[str], metric: str, title: str, path: Path) -> Path:
    """Agent (rows) x partner (columns), both seats pooled; each cell reads its mean and n."""
    percent = title.endswith("%")
    grid = [
        [stat([r for r in records if r.agent == a and r.partner == b], metric, percent) for b in names] for a in names
    ]
    fig = Figure(figsize=(1.6 + 1.3 * len(names), 1.2 + 1.0 * len(names)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow([[s.mean if s.mean is not None else float("nan") for s in row] for row in grid], cmap="viridis")
    fig.colorbar(image, ax=ax, shrink=0.8)
    for i, row in enumerate(grid):
        for j, s in enumerate(row):
            text = "–" if s.mean is None else f"{s.mean:.{0 if percent else 1}f}\nn={s.n}"
            light = s.mean is not None and image.norm(s.mean) > 0.6  # viridis is light at its top
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="black" if light else "white")
    ax.set_xticks(range(len(names)), list(names), rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), list(names), fontsize=8)
    ax.set_xlabel("partner")
    ax.set_ylabel("agent")
    ax.set_title(title, fontsize=10)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


def seeds_section(records: Sequence[EvalRecord], names: Sequence[str], layout: str) -> str:
    """The inter-seed cross-play table under its heading, or "" where no method has two seeds here."""
    table = seeds_table(records, names, layout)
    if not table:
        return ""
    return f"### XP seeds: each trained agent with the other seeds of its method (the paper's XP)\n\n{table}\n\n"


def page(
    settings: Settings, records: Sequence[EvalRecord], folder: Path, images: Sequence[Path], gap_image: Path | None
) -> str:
    names, layout = settings.agents, settings.layout
    kinds = ", ".join(f"{n} ({kind_of(n, layout).lower()})" for n in names)
    # ProAgent's model under the title, as every table names it, before any number can be read.
    model = "" if LLM not in names else settings.model_line()
    return (
        f"# Yōkai {layout}: self-play and cross-play with the paper's metrics\n\n{model}"
        f"Regenerate: `{settings.command}` (run folder `{folder.name}`, "
        f"{len(records)} games: every agent with every agent, both seats, {settings.episodes} per ordered pair and "
        f"seat, seeds {settings.seed} on, perfect memory as in the paper).\n\n"
        f"Agents: {kinds}. SP is an agent with itself; XP its games with every other agent here "
        "(cross-play between different conventions); XP seeds, where an agent's method has other seeds here, its "
        "games with those (the paper's inter-seed XP of one method). "
        "R is eq. 4 (the record's score); SEE, EE, WEE and win are percentages; WEE = P(win | EE) counts "
        'only the games that ended early (its n), "–" where none did. Cells: mean ± standard error over games '
        "(n = games; the paper's ± is over training seeds, 12 in its Table 2).\n\n"
        f"## Ours\n\n{ours_table(records, names, layout)}\n\n"
        + seeds_section(records, names, layout)
        + f"### The other metrics\n\n{more_table(records, names, layout)}\n\n"
        f"## The paper, Table 2 (2-player 9C)\n\n{paper_table()}\n\n"
        f"### Table 4 (OP's symmetry group)\n\n{paper_table(PAPER_GROUPS)}\n\n"
        f"{summary_markdown(paper_gaps(records, names, layout))}\n{GAP_NOTE}\n\n"
        + (f"![ours against the paper]({gap_image.name})\n\n" if gap_image else "")
        + "## Cross-play matrices (agent x partner, both seats pooled)\n\n"
        + "\n".join(f"![{p.stem}]({p.name})" for p in images)
        + "\n"
    )


def run(settings: Settings, console: Console) -> Path:
    """Check the names, play the grid, write the page, the CSV and the heatmaps; returns the page."""
    check_names(settings.agents, settings.layout)
    (folder,) = play_grids([grid(settings)], settings, console)
    records = read_records(folder / "episodes.jsonl")
    out = page_out(settings, [folder])
    out.parent.mkdir(parents=True, exist_ok=True)
    images = [heatmap(records, settings.agents, m, t, out.with_name(f"{out.name}_xp_{m}.png")) for m, t in HEATMAPS]
    write_csv(records, settings.agents, settings.layout, out.with_suffix(".csv"))
    gaps = paper_gaps(records, settings.agents, settings.layout)
    gap_image = gap_plot(gaps, out.with_name(f"{out.name}_vs_paper.png"), "Yōkai: R (eq. 4)")
    return write_page(out, page(settings, records, folder, images, gap_image))
