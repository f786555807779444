"""The MA-Crafter world's scripted planner, under the name the tests and the loopback server use:
the definition is the product's (`proagent.domains.macrafter.scripted`)."""

from proagent.domains.macrafter.scripted import EXPLANATION, macrafter_answer, plan_for

__all__ = ["EXPLANATION", "macrafter_answer", "plan_for"]
