"""`proagent layouts`: list kitchens, or show one."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("layouts", help="list available layouts, or print one")
    p.add_argument("name", nargs="?", help="a layout name or file to print")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from envs import CLASSIC_LAYOUTS, LayoutError, available_layouts, get_layout

    if args.name is None:
        print("classic:", ", ".join(CLASSIC_LAYOUTS))
        print("all:", ", ".join(available_layouts()))
        return 0
    try:
        layout = get_layout(args.name)
    except LayoutError as exc:
        print(f"error: {exc}")
        return 2
    print(layout.to_ascii())
    print(f"starts: {list(layout.starts)}  recipes: {[list(r) for r in layout.recipes]}")
    return 0
