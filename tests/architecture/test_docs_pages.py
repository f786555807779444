"""The docs' shape: guides in docs/, measured results in docs/results/ only (each page indexed
there, each regenerate command writing there), every relative link of the Markdown pages
resolving to a file of the checkout, and one naming scheme for the results pages (the rule at the
top of docs/results/README.md): a `proagent reproduce` target's page is ``<target>_<model>.md``
(``<target>.md`` where no LLM plays), at most one per target and model, its regenerate command
naming its own path; any other page is named after the script or eval that makes it."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A results page says how it was made near its top: a "Regenerate" or "Made with" line, or the
# command itself writing into docs/.
RESULT_MARKER = re.compile(r"^(> )?(Regenerate|Made with)\b|--(out|results) docs/")
HEAD_LINES = 12
WRITES_INTO_DOCS = re.compile(r"--(?:out|results) (docs/[^\s`'\")]*)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"```.*?```", re.DOTALL)
# the page's own regenerate command: the loopback script's or `proagent reproduce`'s, first in its head
REPRODUCE = re.compile(r"`((?:PYTHONPATH=\S+ )?python scripts/reproduce_loopback\.py [^`]+|proagent reproduce [^`]+)`")
# model suffixes: what played the LLM seats, or (no LLM seat) the family of trained partners other than the target's
MODELS = frozenset({"loopback", "scripted", "embedded"})
PARTNER_FAMILIES = frozenset({"rl", "pointer"})
INDEX_HEADER = "| page | target | model |"
# Pages of a stand-in for the model (the loopback double, the scripted planner) say so at their top: the loopback
# script's banner (scripts/reproduce_loopback.py `results_page`), or a table's model line (`model_label`).
STAND_INS = frozenset({"loopback", "scripted"})
NOT_A_MODEL = re.compile(r"^(> \*\*Not an LLM result\.\*\*|Model: .*\bnot a language model\b)")


def markdown_pages(root: Path) -> list[Path]:
    """README.md, and every Markdown page of docs/, partners/ and prompts/."""
    pages = [root / "README.md"] if (root / "README.md").exists() else []
    return pages + sorted(p for folder in ("docs", "partners", "prompts") for p in (root / folder).rglob("*.md"))


def is_results_page(page: Path) -> bool:
    head = page.read_text(encoding="utf-8").splitlines()[:HEAD_LINES]
    return any(RESULT_MARKER.search(line) for line in head)


def results_pages_elsewhere(root: Path) -> list[str]:
    results = root / "docs" / "results"
    return [
        str(page.relative_to(root))
        for page in sorted((root / "docs").rglob("*.md"))
        if is_results_page(page) and results not in page.parents
    ]


def outputs_elsewhere(root: Path) -> list[str]:
    """Each ``--out docs/...`` or ``--results docs/...`` of a page or a script that does not write
    into docs/results/."""
    sources = [*markdown_pages(root), *sorted((root / "scripts").glob("*.py"))]
    return [
        f"{path.relative_to(root)}: {target}"
        for path in sources
        for target in WRITES_INTO_DOCS.findall(path.read_text(encoding="utf-8"))
        if not target.startswith("docs/results")
    ]


def broken_links(root: Path) -> list[str]:
    """Relative links (outside code blocks) whose file does not exist; anchors are not checked."""
    broken = []
    for page in markdown_pages(root):
        for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL or an anchor of the page itself
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(root)}: {target}")
    return broken


def unindexed_results(root: Path) -> list[str]:
    results = root / "docs" / "results"
    index = (results / "README.md").read_text(encoding="utf-8")
    linked = {target.split("#")[0] for target in LINK.findall(index)}
    return [page.name for page in sorted(results.glob("*.md")) if page.name != "README.md" and page.name not in linked]


def reproduce_targets(root: Path) -> frozenset[str]:
    with (root / "data" / "reproduce_targets.toml").open("rb") as f:
        return frozenset(t["name"] for t in tomllib.load(f)["targets"])


def results_pages(root: Path) -> list[Path]:
    return [p for p in sorted((root / "docs" / "results").glob("*.md")) if p.name != "README.md"]


def page_command(page: Path) -> str | None:
    """The `proagent reproduce` (or loopback script) command near the page's top, if it has one."""
    found = REPRODUCE.search("\n".join(page.read_text(encoding="utf-8").splitlines()[:HEAD_LINES]))
    return found.group(1) if found else None


def flag(words: list[str], name: str) -> str | None:
    return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == name), None)


def command_model(command: str) -> str | None:
    """The model a command plays its LLM seats with, as a name suffix; None: the command names none
    (the default, embedded model, or no LLM seat at all)."""
    words = command.split()
    llm = flag(words, "--llm")
    if "scripts/reproduce_loopback.py" in command or (llm or "").startswith("python:tests.support.loopback"):
        return "loopback"
    return llm.split("/")[-1].lower().replace("_", "-") if llm else None


def command_target(command: str) -> str:
    words = command.split()
    return words[words.index("reproduce") + 1] if "reproduce" in words else words[words.index("python") + 2]


def models_agree(named: str, command: str | None, head: str) -> bool:
    """A page's suffix against its command's model ("" names no LLM seat; the loopback script names a
    target without one bare and says so in its title, as it plays no double there)."""
    if command is None:
        return named not in {"loopback", "scripted"}
    if command == "loopback" and named == "":
        return "no LLM plays" in head
    return named == command


def name_problems(page: Path, targets: frozenset[str], makers: set[str]) -> list[str]:
    """Why ``page``'s name breaks the rule: an unknown model, a command for another target or
    model, a regenerate path that is not the page's own, or a non-target page named after no maker."""
    stem, command = page.stem, page_command(page)
    target, _, model = stem.partition("_")
    if target not in targets:
        if command is not None or "-" in stem or not any(stem == m or stem.startswith(f"{m}_") for m in makers):
            return [f"{page.name}: neither <target>_<model>.md nor named after the script or eval that makes it"]
        return []
    problems = []
    if model and model not in MODELS | PARTNER_FAMILIES and model != (command and command_model(command)):
        problems.append(f"{page.name}: unknown model suffix {model!r}")
    if command is not None:
        words = command.split()
        if command_target(command) != target:
            problems.append(f"{page.name}: its command reproduces {command_target(command)}")
        if not models_agree(model, command_model(command), page.read_text(encoding="utf-8")[:2000]):
            problems.append(f"{page.name}: its command plays {command_model(command) or 'the default model'}")
        out, results = flag(words, "--out"), flag(words, "--results")
        if out is not None and out != f"docs/results/{stem}":
            problems.append(f"{page.name}: its command writes {out}")
        if results is not None and (results != "docs/results" or model not in {"loopback", ""}):
            problems.append(f"{page.name}: --results {results} writes docs/results/<target>_loopback.md")
    return problems


def misnamed_pages(root: Path) -> list[str]:
    targets = reproduce_targets(root)
    scripts = {p.stem for p in (root / "scripts").glob("*.py")}
    problems = []
    for page in results_pages(root):
        evals = {n.replace("-", "_") for n in re.findall(r"--name ([\w-]+)", page.read_text(encoding="utf-8"))}
        problems += name_problems(page, targets, scripts | evals)
    return problems


def page_identity(page: Path, targets: frozenset[str]) -> tuple[str, str] | None:
    """(target, model) of a page a target makes, from its command where that names the model, else
    from its name ("?" for a name outside the rule); None for a page no target makes."""
    command = page_command(page)
    target, _, model = page.stem.partition("_")
    if command is None:
        return (target, model) if target in targets else None
    return command_target(command), command_model(command) or (model if target in targets else "?")


def duplicate_pages(root: Path) -> list[str]:
    """Pages that are another's target and model again (a fuller and a tiny run of one target on one
    model, say, under two names)."""
    targets = reproduce_targets(root)
    identities = {page.name: page_identity(page, targets) for page in results_pages(root)}
    counts = Counter(i for i in identities.values() if i is not None)
    return sorted(name for name, i in identities.items() if i is not None and counts[i] > 1)


def orphan_files(root: Path) -> list[str]:
    """Figures and data files of docs/results/ whose name begins with no page's (``<page>_*``, ``<page>.*``)."""
    folder = root / "docs" / "results"
    stems = [p.stem for p in folder.glob("*.md")]
    return [
        f.name
        for f in sorted(folder.iterdir())
        if f.suffix != ".md" and not any(f.name.startswith((f"{s}_", f"{s}.")) for s in stems)
    ]


def index_rows(root: Path) -> list[tuple[str, str, str]]:
    """(page, target, model) of each row of the index's tables of target pages."""
    rows, inside = [], False
    for line in (root / "docs" / "results" / "README.md").read_text(encoding="utf-8").splitlines():
        inside = line.startswith(INDEX_HEADER) or (inside and line.startswith("|"))
        links = LINK.findall(line)
        if inside and line.startswith("| [") and links:
            cells = [c.strip() for c in line.strip("|").split("|")]
            model = re.findall(r"`([^`]+)`", cells[2]) or cells[2].split()[:1] or [""]
            rows.append((links[0], cells[1].strip("`"), model[0]))
    return rows


def index_disagreements(root: Path) -> list[str]:
    """Target pages the index's table leaves out, lists twice, or gives another target or model."""
    targets = reproduce_targets(root)
    listed = Counter(page for page, _, _ in index_rows(root))
    problems = [f"{page}: listed {n} times" for page, n in listed.items() if n > 1]
    for page, target, model in index_rows(root):
        named, _, suffix = page.removesuffix(".md").partition("_")
        if (named, suffix or "none") != (target, model):
            problems.append(f"{page}: the index says {target} on {model}")
    for page in results_pages(root):
        if page.stem.partition("_")[0] in targets and page.name not in listed:
            problems.append(f"{page.name}: not in the index's table of target pages")
    return problems


def unmarked_stand_in_pages(root: Path) -> list[str]:
    """``<target>_loopback.md`` and ``<target>_scripted.md`` pages whose top does not say that no language model
    answered (a reader who sees only the table must not take the stand-in's numbers for a model's)."""
    return [
        page.name
        for page in results_pages(root)
        if page.stem.partition("_")[2] in STAND_INS
        and not any(NOT_A_MODEL.match(line) for line in page.read_text(encoding="utf-8").splitlines()[:HEAD_LINES])
    ]


def test_results_pages_live_under_docs_results_only() -> None:
    assert results_pages_elsewhere(ROOT) == []


def test_every_regenerate_command_writes_into_docs_results() -> None:
    assert outputs_elsewhere(ROOT) == []


def test_every_relative_link_resolves() -> None:
    assert broken_links(ROOT) == []


def test_the_results_index_links_every_results_page() -> None:
    assert unindexed_results(ROOT) == []


def test_the_checks_would_fail_on_a_misplaced_page_a_stray_output_and_a_broken_link(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "results").mkdir(parents=True)
    (docs / "guide.md").write_text("# A guide\n\nSee [the table](results/table.md) and [gone](gone.md#x).\n")
    (docs / "table.md").write_text("# A table\n\nRegenerate: `proagent reproduce t --out docs/table`\n")
    (docs / "results" / "README.md").write_text("# Results\n\n[table](table.md)\n")
    (docs / "results" / "table.md").write_text(
        "# A table\n\n> Regenerate: `proagent reproduce t --out docs/results/table`\n"
    )
    (docs / "results" / "other.md").write_text("# Another\n\nMade with:\n")
    assert results_pages_elsewhere(tmp_path) == ["docs/table.md"]
    assert outputs_elsewhere(tmp_path) == ["docs/table.md: docs/table"]
    assert broken_links(tmp_path) == ["docs/guide.md: gone.md#x"]
    assert unindexed_results(tmp_path) == ["other.md"]
    assert not is_results_page(docs / "guide.md") and is_results_page(docs / "results" / "other.md")


def test_every_results_page_is_named_by_the_rule() -> None:
    assert misnamed_pages(ROOT) == []


def test_no_two_pages_have_the_same_target_and_model() -> None:
    assert duplicate_pages(ROOT) == []


def test_every_figure_and_data_file_belongs_to_a_page() -> None:
    assert orphan_files(ROOT) == []


def test_the_index_gives_each_target_page_its_target_and_model() -> None:
    assert index_disagreements(ROOT) == []


def test_every_loopback_and_scripted_page_says_no_language_model_answered() -> None:
    assert unmarked_stand_in_pages(ROOT) == []


def test_the_stand_in_check_fails_on_a_page_that_does_not_say_it(tmp_path: Path) -> None:
    results = tmp_path / "docs" / "results"
    results.mkdir(parents=True)
    pages = {
        "a_loopback.md": "# A (made with the loopback test double)\n\n> **Not an LLM result.** This page was made...\n",
        "b_scripted.md": "# B\n\nModel: `scripted`: the world's scripted planner (not a language model).\n",
        "c_loopback.md": "# C\n\nRegenerate: `proagent reproduce c --out docs/results/c_loopback`\n",
        "d_scripted.md": "# D\n\nModel: `scripted`.\n\nThe planner is not a language model.\n",  # not the model line
        "e_embedded.md": "# E\n\nModel: the embedded model (the default `--llm`).\n",
    }
    for name, text in pages.items():
        (results / name).write_text(text)
    assert unmarked_stand_in_pages(tmp_path) == ["c_loopback.md", "d_scripted.md"]


def write_tree(root: Path, pages: dict[str, str], index_rows: list[str]) -> None:
    """A checkout with two targets, one script, ``pages`` under docs/results/ and an index table."""
    (root / "data").mkdir()
    (root / "data" / "reproduce_targets.toml").write_text('[[targets]]\nname = "t-one"\n[[targets]]\nname = "t-two"\n')
    (root / "scripts").mkdir()
    (root / "scripts" / "zoo_crossplay.py").write_text("")
    results = root / "docs" / "results"
    results.mkdir(parents=True)
    table = "\n".join([f"{INDEX_HEADER} settings |", "|---|---|---|---|", *index_rows])
    (results / "README.md").write_text(f"# Results\n\n{table}\n")
    for name, text in pages.items():
        (results / name).write_text(text)


def test_the_naming_checks_fail_on_two_schemes_a_stale_path_and_a_mislabelled_page(tmp_path: Path) -> None:
    loop = "`PYTHONPATH=. python scripts/reproduce_loopback.py"
    pages = {
        "t-one_loopback.md": f"# T\n\nRegenerate: {loop} t-one --results docs/results --episodes 1`\n",
        "t_one_big.md": f"# T\n\nRegenerate: {loop} t-one --episodes 5 --out docs/results/t_one_big`\n",  # old scheme
        "t-one_embedded.md": "# T\n\nRegenerate: `proagent reproduce t-one --llm scripted --out docs/results/t-one_embedded`\n",
        "t-two_embedded.md": "# T\n\nRegenerate: `proagent reproduce t-two --out docs/results/t_two_embedded`\n",
        "t-two.md": f"# T (no LLM plays in this table)\n\n> Regenerate: {loop} t-two --results docs/results`\n",
        "t-two_gpt-4o.md": "# T\n\nRegenerate: `proagent reproduce t-two --llm openai/gpt-4o --out docs/results/t-two_gpt-4o`\n",
        "zoo_crossplay_yokai.md": "# Z\n\n`python scripts/zoo_crossplay.py --out docs/results/zoo_crossplay_yokai`\n",
        "yokai_zoo.md": "# Z\n\n`python scripts/zoo_crossplay.py --out docs/results/yokai_zoo`\n",
        "t-one_loopback_radar.png": "",
        "t_one_big_radar.png": "",
        "gone_radar.png": "",
    }
    rows = [
        "| [t-one_loopback.md](t-one_loopback.md) | `t-one` | `loopback`: the double | 1 |",
        "| [t-one_embedded.md](t-one_embedded.md) | `t-one` | `loopback` | 1 |",
        "| [t-two.md](t-two.md) | `t-two` | `none` | 1 |",
    ]
    write_tree(tmp_path, pages, rows)
    assert misnamed_pages(tmp_path) == [
        "t-one_embedded.md: its command plays scripted",
        "t-two_embedded.md: its command writes docs/results/t_two_embedded",
        "t_one_big.md: neither <target>_<model>.md nor named after the script or eval that makes it",
        "yokai_zoo.md: neither <target>_<model>.md nor named after the script or eval that makes it",
    ]
    assert duplicate_pages(tmp_path) == ["t-one_loopback.md", "t_one_big.md"]
    assert orphan_files(tmp_path) == ["gone_radar.png"]
    assert index_disagreements(tmp_path) == [
        "t-one_embedded.md: the index says t-one on loopback",
        "t-two_embedded.md: not in the index's table of target pages",
        "t-two_gpt-4o.md: not in the index's table of target pages",
    ]
