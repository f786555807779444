"""Environment feedback for MA-Crafter (EmCoop's RQ3): the team's constraint and dependency snapshot.

EmCoop finds that a leader whose messages carry explicit environment feedback (who is where, who
holds which tool, what the next task still lacks) helps hard teams check what is feasible. This is
that snapshot, as one line of text read from the env's *truth* (the whole `CrafterView`, not any
agent's partial view): MAEIL's ``--feedback`` attaches it to the leader's messages and labels it
as environment feedback, so a reader never mistakes it for something the leader saw.

The next task is the first resource, in tech-tree order (tool tier, then value), that the team
cannot yet collect at its quorum: too few alive agents hold its tool. The snapshot says how many
hold it (that exact tool), which agents, the nearest cell, and for the missing tool what its
recipe still needs (stations placed, an agent holding every ingredient; the crafters under the
paper's crafting quorum). Once the team is equipped
for every resource, the next task is the most valuable one and the snapshot says who is near it.
"""

from __future__ import annotations

from envs.macrafter.settings import SCORED, CrafterSettings
from envs.macrafter.symbolic import AgentState, CrafterView
from proagent.domains.macrafter.constraints import (
    RESOURCE_MATERIAL,
    STATION_MATERIAL,
    TOOL_TIER_OF,
    TOOLS,
    holds_tool,
    manhattan,
    nearest_cell,
    settings_of,
)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _agent_line(agent: AgentState) -> str:
    if not agent.alive:
        return f"agent {agent.seat} is down"
    tools = [name for name in sorted(TOOLS) if agent.count(name) > 0]
    items = [f"{name} {n}" for name, n in sorted(agent.inventory.items()) if n > 0 and name not in TOOLS]
    held = ", ".join(tools + items) or "nothing"
    asleep = " asleep" if agent.sleeping else ""
    return f"agent {agent.seat} at ({agent.position[0]},{agent.position[1]}){asleep} holds {held}"


def _stations(view: CrafterView) -> str:
    parts = []
    for name, material in STATION_MATERIAL.items():
        cells = view.cells_of(material)
        parts.append(f"{name} at " + " ".join(f"({x},{y})" for x, y in cells) if cells else f"no {name} placed")
    return "; ".join(parts)


def next_resource(view: CrafterView, settings: CrafterSettings) -> str:
    """The first resource in tech-tree order whose quorum the team's tool holders cannot meet
    (the most valuable one once the team is equipped for all)."""
    ranked = sorted(SCORED, key=lambda r: (TOOL_TIER_OF[settings.resources[r].tool], settings.resources[r].base_value))
    for resource in ranked:
        rule = settings.resources[resource]
        if sum(1 for a in view.agents if a.alive and holds_tool(a, rule.tool)) < rule.quorum:
            return resource
    return ranked[-1]


def _recipe_needs(view: CrafterView, settings: CrafterSettings, tool: str) -> str:
    """What crafting ``tool`` still lacks: stations, crafters, a leader holding every ingredient."""
    recipe = settings.recipes.get(tool)  # type: ignore[call-overload]
    if recipe is None:
        return f"{tool} cannot be crafted"
    missing_stations = [s for s in recipe.stations if not view.cells_of(STATION_MATERIAL[s])]
    stations = f"place {', '.join(missing_stations)}" if missing_stations else f"{' and '.join(recipe.stations)} placed"
    alive = [a for a in view.agents if a.alive]
    crafters = (
        f"; {_count(recipe.quorum, 'crafter')} near the station"
        + ("" if len(alive) >= recipe.quorum else f" (only {len(alive)} alive)")
        if recipe.quorum > 1
        else ""
    )
    needs = ", ".join(f"{item} {n}" for item, n in recipe.needs.items())
    leaders = [a.seat for a in alive if all(a.count(i) >= n for i, n in recipe.needs.items())]
    if leaders:
        bag = f"agent {leaders[0]} holds {needs}"
    else:
        short = {i: n - sum(a.count(i) for a in alive) for i, n in recipe.needs.items()}
        lacking = ", ".join(f"{i} {n}" for i, n in short.items() if n > 0)
        bag = f"no agent holds all of {needs}" + (
            f"; the team lacks {lacking}" if lacking else "; gather them in one bag (share)"
        )
    return f"to craft {tool}: {stations}{crafters}; {bag}"


def snapshot(view: CrafterView) -> str:
    """One line of environment feedback: every agent's place and bag, the stations, the next task
    and what it lacks (quorum, tool, station, ingredients)."""
    settings = settings_of(view)
    resource = next_resource(view, settings)
    rule = settings.resources[resource]
    holders = [a.seat for a in view.agents if a.alive and holds_tool(a, rule.tool)]
    tool = "no tool" if rule.tool == "none" else rule.tool
    task = (
        f"next task: collect {resource} ({_count(rule.quorum, 'agent')} with {tool} within "
        f"{settings.collect_distance} acting in the same step)"
    )
    if rule.quorum > len(view.agents):
        task += f"; out of reach: the team has {_count(len(view.agents), 'agent')}"
    held = f"{len(holders)} of {rule.quorum} hold {tool}" + (
        f" (agents {', '.join(map(str, holders))})" if holders else ""
    )
    cell = nearest_cell(view, RESOURCE_MATERIAL[resource])
    if cell is None:
        where = f"no {resource} left in the world"
    else:
        near = [a.seat for a in view.agents if a.alive and manhattan(a.position, cell) <= settings.collect_distance]
        where = f"nearest {resource} at ({cell[0]},{cell[1]}), {_count(len(near), 'agent')} within reach"
    parts = [f"step {view.step}", *(_agent_line(a) for a in view.agents), _stations(view), task, held, where]
    if len(holders) < rule.quorum and rule.tool != "none":
        parts.append(_recipe_needs(view, settings, rule.tool))
    return "; ".join(parts)


__all__ = ["next_resource", "snapshot"]
