"""The Verificator's explanation of a rejected skill, in the mode the agent runs.

Legality is always decided by code (the skill book's precondition checks and the undo-loop guard,
`ProAgent._verify`): a model's opinion never lets an illegal skill through. What the modes change
is how the re-plan learns *why* a skill was refused:

- ``code``: the checks' reasons plus one short explanation call (``explainer.j2``);
- ``llm3``: the paper's three-round dialogue, each round one metered, cached model call in one
  conversation: Preconditions Check (the model checks the skill's preconditions against the scene
  step by step, told only that the skill cannot run), Double-check (the checks' reasons are shown
  and the model confirms or corrects its analysis), Error Conclusion (a short conclusion the
  re-plan prompt reads). The rounds' templates are the prompt set's ``verify_*.j2``, else the
  world's ``_shared/`` ones;
- ``off``: no check at all (``--no-verificator``).

Model text is untrusted: each answer is cleaned and bounded before it is re-sent in the next round
or recorded, so a server that ignores max_tokens cannot grow the conversation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel

from proagent.agent.planner import Planner
from proagent.llm.sanitize import clean_field, clip
from proagent.llm.types import Completion, Grounding, LLMResponseError, Message
from proagent.world.types import Skill

VerifyRoundName = Literal["preconditions", "double_check", "conclusion"]
# The rounds in order, each with its template; the conclusion is what the re-plan reads.
LLM3_ROUNDS: tuple[tuple[VerifyRoundName, str], ...] = (
    ("preconditions", "verify_preconditions.j2"),
    ("double_check", "verify_double_check.j2"),
    ("conclusion", "verify_conclusion.j2"),
)

Generate = Callable[[list[Message], int, Grounding], Awaitable[Completion]]


class VerifyRound(BaseModel):
    """One round of the llm3 dialogue as the decision trace keeps it: its prompt (the user message;
    the earlier rounds precede it in the conversation) and the cleaned, bounded answer."""

    round: VerifyRoundName
    prompt: str
    response: str
    cached: bool


class RoundBudget(BaseModel):
    """Tokens asked for and characters kept: the conclusion is short and fed back to the planner;
    the earlier rounds reason step by step and are re-sent within the dialogue."""

    round_tokens: int
    conclusion_tokens: int
    round_chars: int
    conclusion_chars: int


async def three_rounds(
    planner: Planner, facts: dict, skill: Skill, reasons: list[str], generate: Generate, budget: RoundBudget
) -> list[VerifyRound]:
    """The three rounds on one rejection, in one conversation; a round whose answer cannot be read
    ends the dialogue (the rounds so far are kept, and the checks' reasons still reach the re-plan)."""
    conversation = [Message(role="system", content=planner.system_prompt)]
    rounds: list[VerifyRound] = []
    for name, template in LLM3_ROUNDS:
        last = name == "conclusion"
        prompt = planner.verify_prompt(template, facts, skill, reasons)
        conversation.append(Message(role="user", content=prompt))
        grounding = planner.verify_grounding(name, facts, skill, reasons)
        try:
            tokens = budget.conclusion_tokens if last else budget.round_tokens
            completion = await generate(list(conversation), tokens, grounding)
        except LLMResponseError:
            break
        answer = clip(clean_field(completion.text).strip(), budget.conclusion_chars if last else budget.round_chars)
        rounds.append(VerifyRound(round=name, prompt=prompt, response=answer, cached=completion.cached))
        conversation.append(Message(role="assistant", content=answer))
    return rounds


def conclusion(rounds: list[VerifyRound]) -> str | None:
    """The Error Conclusion's text, or None when the dialogue did not get that far."""
    return next((r.response or None for r in rounds if r.round == "conclusion"), None)
