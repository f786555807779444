"""Overcooked partners follow the one agent contract (proagent.contract.Agent); kept names."""

from __future__ import annotations

from proagent.contract import Agent as Partner
from proagent.contract import UnknownAgentError as UnknownPartnerError

__all__ = ["Partner", "UnknownPartnerError"]
