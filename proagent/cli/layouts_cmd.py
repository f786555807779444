"""`proagent layouts`: list kitchens, or show one."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("layouts", help="list available layouts, or print one")
    p.add_argument("name", nargs="?", help="a layout name or file to print")
    p.add_argument("--domain", default=None, help="another world: a built-in name or module:attribute (default overcooked)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.domain is not None:
        return _run_domain(args.domain, args.name)
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


def _run_domain(spec: str, name: str | None) -> int:
    """Any domain's layouts: the names, or one layout's first state as the domain renders it."""
    import jax

    from proagent.domains import DomainInputError, get_domain

    try:
        domain = get_domain(spec)
        if name is None:
            print(f"{domain.name}:", ", ".join(domain.layout_names()))
            return 0
        env = domain.make_env(name, 1)
    except DomainInputError as exc:
        print(f"error: {exc}")
        return 2
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    rendering = domain.capabilities.rendering
    print(rendering.text(first) if rendering is not None else first)
    print(f"agents: {env.num_agents}")
    return 0
