"""Render every template of a prompt set once, before anything is paid for or written.

Templates are user data: a Jinja syntax error or an undefined variable (StrictUndefined) would
otherwise surface at the first render of that template, after the run folder exists and possibly
after paid calls (the explainer renders only when a plan fails its checks). Front ends call
`check_prompt_set` on the episode's first state with sample memory, feedback and beliefs, so every
block of every template is exercised, and report a `PromptSetError` as one line.
"""

from __future__ import annotations

from proagent.agent.memory import MemoryRecord
from proagent.agent.planner import Planner
from proagent.agent.prompts import PromptSet, load_knowledge
from proagent.agent.verificator import LLM3_ROUNDS
from proagent.agent.verificator_modes import VerificatorMode
from proagent.contract import others
from proagent.world.interface import Domain
from proagent.world.types import DomainEnv, State, TeammateView, wait_skill

_SAMPLE_SKILL = wait_skill(1)


def check_prompt_set(
    prompts: PromptSet, domain: Domain, env: DomainEnv, state: State, seat: int, verificator: VerificatorMode = "code"
) -> None:
    """Raise `PromptSetError` (naming the set and template) if any template fails to render; the
    llm3 Verificator's round templates too when that is the mode the agent will run."""
    book = domain.skill_book(state)
    knowledge = load_knowledge(domain.knowledge_root, env.name, seat, domain.knowledge_facts(env))
    idle = domain.action_names[domain.idle_action]
    mates = [TeammateView(s, str(_SAMPLE_SKILL), idle) for s in others(seat, env.num_agents)]
    for output_format in ("json", "text"):
        planner = Planner(
            prompts, knowledge, book, seat, output_format, teammates=tuple(m.seat for m in mates)
        )  # renders planner_system.j2
        facts = domain.ground(state, seat, book, mates, 0.0)
        planner.messages(facts, _sample_memory(), [_sample_feedback()])
        planner.messages(facts, [], [])
    planner.explainer_messages(facts, _SAMPLE_SKILL, ["a sample reason"])
    if verificator == "llm3":
        for _, template in LLM3_ROUNDS:
            planner.verify_prompt(template, facts, _SAMPLE_SKILL, ["a sample reason"])
    for mode in ("replace", "annotate"):
        prompts.render("belief.j2", {"mode": mode, "predicted": str(_SAMPLE_SKILL), "actual": str(_SAMPLE_SKILL)})


def _sample_memory() -> list[dict]:
    record = MemoryRecord(
        step=0,
        state="a sample state",
        analysis="a sample analysis",
        intention=str(_SAMPLE_SKILL),
        belief="a sample belief",
        skill=str(_SAMPLE_SKILL),
        outcome="done",
    )
    return [record.model_dump()]


def _sample_feedback() -> dict:
    return {"skill": str(_SAMPLE_SKILL), "reasons": ["a sample reason"], "explanation": "a sample explanation"}
