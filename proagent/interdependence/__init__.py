"""Cooperation metrics beyond reward: constructive interdependence (STRIPS mapping) and intention
accuracy, after "Constructive interdependence" (the interdependence paper, Secs. 3-4, App. C-D).

- ``strips``: domain-agnostic predicates, operator schemas, grounded traces, PDDL-like export;
- ``overcooked_domain``: the Overcooked mapping (events -> grounded operators), the domain itself
  being data in knowledge/overcooked/strips.toml;
- ``identity``: individual objects (this onion, this dish, this soup) through an episode;
- ``analysis``: interdependent pairs, triggers, influence trajectories, goal-reaching,
  non-looping (with App. D.4's useful transfers), constructive counts, per-agent initiated/accepted;
- ``intention``: intention-prediction accuracy against the teammate's next completed skill;
- ``records``: the result records; ``episode``/``folder``/``report``: per-episode entry point,
  run-folder analysis (`proagent analyze`), tables.
"""
