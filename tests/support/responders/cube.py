"""The CUBE world's scripted planner, under the name the tests and the loopback server use: the
definition is the product's (`proagent.domains.cube.scripted`)."""

from proagent.domains.cube.scripted import EXPLANATION, cube_answer, plan_for

__all__ = ["EXPLANATION", "cube_answer", "plan_for"]
