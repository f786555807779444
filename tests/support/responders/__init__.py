"""The answers the tests, benchmarks and the loopback server play, per world.

- `overcooked`, `cube`, `yokai`, `macrafter`: each world's scripted planner, defined in the product
  (``proagent/domains/<world>/scripted.py``, what ``--llm scripted`` plays) and only named here;
  `overcooked` adds `hasty_answer`, a double that errs on purpose;
- `lamps`: the tests' lamps world (its scripted planner lives here, with the world).

Each takes a `Grounding` (what the prompt was rendered from for that seat: never the engine state,
never the wording) and returns the answer text.
"""
