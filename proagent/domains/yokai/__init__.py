"""Yōkai (the Yōkai Learning Environment's card game) as a proagent world: ``--domain yokai``."""

WORLD = "proagent.domains.yokai.domain:YokaiDomain"  # the registry finds the world by these
DRAWING = None  # no replay drawing yet: replaying a Yōkai run says so in one line
