"""The docs' shape: guides in docs/, measured results in docs/results/ only (each page indexed
there, each regenerate command writing there), and every relative link of the Markdown pages
resolving to a file of the checkout."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A results page says how it was made near its top: a "Regenerate" or "Made with" line, or the
# command itself writing into docs/.
RESULT_MARKER = re.compile(r"^(> )?(Regenerate|Made with)\b|--(out|results) docs/")
HEAD_LINES = 12
WRITES_INTO_DOCS = re.compile(r"--(?:out|results) (docs/[^\s`'\")]*)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"```.*?```", re.DOTALL)


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
    (docs / "results" / "table.md").write_text("# A table\n\n> Regenerate: `proagent reproduce t --out docs/results/table`\n")
    (docs / "results" / "other.md").write_text("# Another\n\nMade with:\n")
    assert results_pages_elsewhere(tmp_path) == ["docs/table.md"]
    assert outputs_elsewhere(tmp_path) == ["docs/table.md: docs/table"]
    assert broken_links(tmp_path) == ["docs/guide.md: gone.md#x"]
    assert unindexed_results(tmp_path) == ["other.md"]
    assert not is_results_page(docs / "guide.md") and is_results_page(docs / "results" / "other.md")
