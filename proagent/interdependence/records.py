"""Result records of the interdependence analysis (plain pydantic data: JSON in, JSON out)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Category = Literal["constructive", "looping", "irrelevant", "looping_irrelevant"]


class Interdependence(BaseModel):
    """One interdependent pair (Def. 4.1): the giver's effect satisfied the receiver's precondition."""

    giver: int
    receiver: int
    object: str
    object_type: str
    proposition: str = Field(description="the effect of the giver that was the receiver's precondition")
    giver_step: int
    receiver_step: int
    giver_action: str
    receiver_action: str
    receiver_operator: str
    goal_reaching: bool = Field(description="Def. 4.4: the object's lineage ends in a goal fact")
    giver_loop: bool = Field(description="Def. 4.5 (1): the giver got the object back in the same state")
    receiver_loop: bool = Field(description="Def. 4.5 (2): the receiver had held it in the same state before")
    useful_transfer: bool = Field(
        False, description="App. D.4: a loop exempted because the freed hands served the goal"
    )
    constructive: bool
    category: Category
    trajectory: list[str] = Field(default_factory=list, description="object influence trajectory (Def. 4.3)")


class AgentCounts(BaseModel):
    """Per agent: the interdependencies it offered (trigger actions, Def. 4.2) and took part in."""

    agent: int
    initiated: int = Field(0, description="trigger actions: effects another agent could use")
    initiated_accepted: int = Field(0, description="of those, how many another agent acted upon")
    accepted: int = Field(0, description="other agents' trigger actions this agent acted upon")
    given: int = 0
    received: int = 0
    constructive_given: int = 0
    constructive_received: int = 0


def pair_key(giver: int, receiver: int) -> str:
    """The key of an ordered pair of agents in ``EpisodeInterdependence.pairs``: ``"0->2"``."""
    return f"{giver}->{receiver}"


class PairCounts(BaseModel):
    """One ordered pair of agents: what ``giver`` offered that ``receiver`` used.

    With more than two agents the per-agent counts no longer say whose offers an agent took up;
    per ordered pair they do (with two, ``pairs["0->1"].accepted`` is agent 1's ``accepted``)."""

    giver: int
    receiver: int
    total: int = Field(0, description="interdependencies from giver to receiver (Def. 4.1)")
    constructive: int = Field(0, description="of those, constructive ones (Def. 4.6)")
    accepted: int = Field(0, description="giver's trigger actions (Def. 4.2) the receiver acted upon")


class EpisodeInterdependence(BaseModel):
    """Everything the analysis says about one episode."""

    total: int = 0
    constructive: int = 0
    non_constructive: int = 0
    looping: int = 0
    irrelevant: int = 0
    useful_transfers: int = 0
    constructive_share: float | None = None
    agents: list[AgentCounts] = Field(default_factory=list)
    pairs: dict[str, PairCounts] = Field(
        default_factory=dict, description="per ordered pair of agents, keyed 'i->j' (pair_key)"
    )
    by_operator: dict[str, int] = Field(default_factory=dict, description="interdependencies per receiver operator")
    goals_reached: int = Field(0, description="goal facts true at the end")
    operators: int = 0
    identity_repairs: int = 0
    interdependencies: list[Interdependence] = Field(default_factory=list)

    def summary(self) -> EpisodeInterdependence:
        """The same without the per-pair details (for episode records)."""
        return self.model_copy(update={"interdependencies": []})
