"""One loopback responder per world: a competent player's answer from the request's grounding.

- `overcooked`: a competent cook (classic kitchens; V2 kitchens through `overcooked_v2`);
- `cube`: the pusher convention, with MAEIL messages and a leader's directives;
- `yokai`: a careful Yōkai player (looks first, joins colours, ends once sorted);
- `macrafter`: the tech-tree convention from what the seat sees and holds, with a leader's directives;
- `lamps`: the tests' lamps world.

Each takes a `Grounding` (what the prompt was rendered from for that seat: never the engine state,
never the wording) and returns the answer text; `tests.support.answers` writes it as the prompt
asked. They are test doubles, not policies: results made with them are labelled loopback.
"""
