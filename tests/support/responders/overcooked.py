"""The Overcooked world's scripted planner, under the name the tests and the loopback server use
(the definition is the product's, `proagent.domains.overcooked.scripted`), and `hasty_answer`, a
test double that errs on purpose.
"""

from __future__ import annotations

from proagent.domains.overcooked.scripted import EXPLANATION, classic_plan, overcooked_answer, verify_answer
from proagent.llm.scripted import Answer, format_answer, require
from proagent.llm.types import Grounding

__all__ = ["EXPLANATION", "classic_plan", "hasty_answer", "overcooked_answer", "verify_answer"]


def hasty_answer(grounding: Grounding | None) -> str:
    """`overcooked_answer`, except that a decision's first plan with empty hands is deliver_soup(),
    which no empty-handed cook can do: every such decision has a rejection for the Verificator."""
    g = require(grounding)
    if g.purpose == "plan" and not g.feedback and g.facts["me"]["held"] is None:
        return format_answer(g, Answer(analysis="Serve now.", intention="pickup(onion)", plan="deliver_soup()"))
    return overcooked_answer(g)
