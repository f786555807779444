"""The test-support kit: the test doubles the tests, benchmarks and scripts share.

Nothing here ships in the product. A run that needs no language model plays the product's own
scripted planner in process (``--llm scripted``: each world's ``proagent/domains/<world>/scripted.py``),
which answers from the typed `Grounding` the agent sends beside each prompt, never from its wording.
The doubles here are for what that cannot show:

- `scripted`: `ScriptedModel`, queued answers (malformed ones, failures) or a function of the
  request, with every request kept for inspection.
- `fake_server`: `FakeChatServer`, an OpenAI-compatible server on 127.0.0.1 (the real HTTP path).
- `loopback`: `LoopbackModel`, the real litellm backend that also posts each request's grounding
  to the server's board (`board`), where the world's scripted planner answers it;
  ``--llm python:tests.support.loopback:loopback_model``, for the HTTP path's tests.
- `responders`: each world's scripted planner under the name the tests use (the definitions are
  the product's), and `hasty_answer`, a double that errs on purpose.

Import it as ``tests.support``: the repository root is on ``sys.path`` under pytest (the root
conftest.py); a script or benchmark inserts the root itself (never ``tests/``, where
``tests/envs`` would shadow the ``envs`` package).
"""
