"""MAEIL (EmCoop's multi-agent environment interaction loop): agents reason, talk and re-plan on a
cognitive clock between environment steps; the environment advances when every agent is ready.

Domain-free: it steps any team through the agent contract; agents that can deliberate
(`talk.Deliberative`, e.g. ProAgent) take part in the conversation, the others are always ready.
"""

from proagent.maeil.talk import Deliberation, Deliberative, Message, Stage, Talk
from proagent.maeil.topology import COOP2_STRUCTURES, EMCOOP_V1_TOPOLOGIES, TOPOLOGIES, TopologyConfig

__all__ = [
    "COOP2_STRUCTURES",
    "EMCOOP_V1_TOPOLOGIES",
    "TOPOLOGIES", "Deliberation", "Deliberative", "Message", "Stage", "Talk", "TopologyConfig",
]
