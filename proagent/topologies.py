"""The names of MAEIL's communication topologies, in a module that imports nothing: the command
line lists them in `--help` without importing MAEIL (which pulls in the LLM layer)."""

from __future__ import annotations

TOPOLOGIES: tuple[str, ...] = ("individual", "debate", "centralized", "decentralized", "broadcast_chain")
