"""`proagent layouts`: every world's layouts (each world's default first), or one layout drawn.

Every registered world is listed, like `proagent partners`: a user of any world finds its layout
names here, and the default the other commands play without ``--layout``."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("layouts", help="list every world's layouts, or print one")
    p.add_argument("name", nargs="?", help="a layout name (or world:layout, or a kitchen file) to print")
    p.add_argument(
        "--domain", default=None, help="one world (default: every registered world): a name or module:attribute"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.domains import DomainInputError, builtin_domain_names, domain_for, get_domain, layout_of

    try:
        if args.name is not None:
            domain = domain_for(args.name, args.domain)
            return _print_one(domain, layout_of(args.name))
        for spec in [args.domain] if args.domain is not None else builtin_domain_names():
            domain = get_domain(spec)
            default = domain.default_layout()
            others = [name for name in domain.layout_names() if name != default]
            print(f"{domain.name}: {', '.join([f'{default} (default)', *others])}")
    except DomainInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _print_one(domain, name: str) -> int:
    """One layout's first state as its world draws it (a kitchen also gets its starts and recipes)."""
    import jax

    env = domain.make_env(name, 1)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    rendering = domain.capabilities.rendering
    print(rendering.text(first) if rendering is not None else first)
    print(f"{domain.name} {env.name}: {env.num_agents} agents")
    return 0
