"""MA-Crafter (EmCoop's open-world cooperation with a tech tree) as a proagent world: ``--domain macrafter``."""

WORLD = "proagent.domains.macrafter.domain:MACrafterDomain"  # the registry finds the world by these
DRAWING = "proagent.domains.macrafter.web:replay_drawing"  # the replay page's drawing (light, no JAX)
