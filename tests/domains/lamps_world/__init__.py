"""Lamps on a line: the smallest world, built on the world kit from outside the package."""

from lamps_world.domain import DOMAIN, LampsDomain

__all__ = ["DOMAIN", "LampsDomain"]
