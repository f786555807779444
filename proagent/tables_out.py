"""Print a table readably wherever the output goes: a rich table on a terminal, Markdown otherwise.

Without a terminal (a log file, CI, a pipe) rich lays tables out at 80 columns and cuts every
cell that does not fit to ``1…``; Markdown lines are as long as their content and read in any log
(and paste into docs). Shared by the front ends (`proagent eval`, `report`, `analyze`,
`partners`) and the evaluation report, so it lives outside both ``cli`` and ``eval``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table


def print_table(console: Console, table: Table, markdown: str) -> None:
    """``table`` on a terminal; otherwise its title and ``markdown`` (the same rows, rendered by
    the caller's own Markdown function), written raw: no markup, no wrapping, no cropping. A blank
    line follows, so that a next line does not read as one more row of the Markdown table."""
    really_a_terminal = getattr(console.file, "isatty", lambda: False)()  # FORCE_COLOR fools is_terminal
    if console.is_terminal and really_a_terminal:
        console.print(table)
        return
    title = f"{table.title}\n\n" if table.title else ""
    console.out(title + markdown.rstrip("\n") + "\n", highlight=False)  # and out()'s own end: one blank line


def markdown_rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain Markdown table of ``rows`` under ``header`` (for tables that have no Markdown
    renderer of their own, such as `proagent partners`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def without_resume(argv: list[str]) -> list[str]:
    """The command line without its ``--resume FOLDER`` pairs: run folders stay on the machine that
    made them, so the command a results page names must regenerate it from nothing."""
    return without_flag(argv, "--resume")


def without_flag(argv: list[str], flag: str) -> list[str]:
    """``argv`` without ``flag VALUE`` and ``flag=VALUE``, wherever they stand."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        elif not arg.startswith(f"{flag}="):
            out.append(arg)
    return out
