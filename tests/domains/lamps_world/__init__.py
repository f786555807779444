"""Lamps on a line: a tiny cooperative world that plugs into proagent from outside the package.

``proagent play --domain lamps_world:DOMAIN --layout line`` (with this folder's parent on the
path) plays it; docs/domains.md walks through it as the example of a new domain.
"""

from lamps_world.domain import DOMAIN, LampsDomain

__all__ = ["DOMAIN", "LampsDomain"]
