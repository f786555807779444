"""The Yōkai world's scripted planner, under the name the tests and the loopback server use: the
definition is the product's (`proagent.domains.yokai.scripted`)."""

from proagent.domains.yokai.scripted import EXPLANATION, WAIT, belief_answer, plan_for, yokai_answer

__all__ = ["EXPLANATION", "WAIT", "belief_answer", "plan_for", "yokai_answer"]
