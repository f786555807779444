"""Yōkai (the Yōkai Learning Environment's card game) as a proagent world: ``--domain yokai``."""

WORLD = "proagent.domains.yokai.domain:YokaiDomain"  # the registry finds the world by these
DRAWING = "proagent.domains.yokai.web:replay_drawing"  # the replay page's drawing (light, no JAX)
