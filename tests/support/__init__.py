"""The test-support kit: the test doubles the tests, benchmarks and scripts share.

Nothing here ships in the product. The doubles answer from the typed `Grounding` the agent sends
beside each prompt (what that prompt was rendered from, for that seat), never from its wording,
so a template can be reworded without breaking them; a run made with one is a loopback run, not
a model's (its `--llm` names the double).

- `answers`: the one place that writes a planner answer as JSON or labelled lines.
- `scripted`: `ScriptedModel`, queued or computed answers in process.
- `fake_server`: `FakeChatServer`, an OpenAI-compatible server on 127.0.0.1 (the real HTTP path).
- `loopback`: `LoopbackModel`, the real litellm backend that also posts each request's grounding
  to the server's board (`board`) for its responder; ``--llm python:tests.support.loopback:loopback_model``.
- `responders`: one responder per world (Overcooked classic and V2, CUBE, lamps).

Import it as ``tests.support``: the repository root is on ``sys.path`` under pytest (the root
conftest.py); a script or benchmark inserts the root itself (never ``tests/``, where
``tests/envs`` would shadow the ``envs`` package).
"""
