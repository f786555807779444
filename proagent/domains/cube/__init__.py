"""CUBE (EmCoop's cooperative block pushing) as a proagent world: ``--domain cube``."""

WORLD = "proagent.domains.cube.domain:CubeDomain"  # the registry finds the world by these
DRAWING = "proagent.domains.cube.web:replay_drawing"  # the replay page's drawing (light, no JAX)
