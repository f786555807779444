"""Cooperation metrics beyond reward: constructive interdependence (STRIPS mapping) and intention
accuracy, after "Constructive interdependence" (the interdependence paper, Secs. 3-4, App. C-D).

Nothing here knows a particular world. A domain provides an ``InterdependenceModel`` (its STRIPS
mapping, the domain itself being data such as knowledge/<domain>/strips.toml) and its event ->
completed-skill inverse; Overcooked's are in ``proagent.domains.overcooked.interdependence``.

- ``strips``: predicates with roles, operator schemas, grounded traces, PDDL-like export;
- ``model``: the seam a domain implements (``InterdependenceModel``, ``StepInput``);
- ``identity``: individual objects through an episode (a domain extends the tracker);
- ``analysis``: interdependent pairs, triggers, influence trajectories, goal-reaching,
  non-looping (with App. D.4's useful transfers), constructive counts, per-agent initiated/accepted
  and the same per ordered pair of agents (any number of agents);
- ``intention``: intention-prediction accuracy against the teammate's next completed skill;
- ``records``: the result records; ``episode``/``folder``/``report``: per-episode entry point,
  run-folder analysis (`proagent analyze`), tables.
"""
