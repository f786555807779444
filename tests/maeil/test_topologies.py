"""MAEIL's cognitive phase under each topology, on scripted talkers: exact stages, messages,
interruptions, re-plans and resumptions, and concurrency of the deliberations in one round."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from proagent.contract import Observation
from proagent.maeil import Deliberation, Deliberative, Talk, TopologyConfig
from proagent.maeil.loop import Maeil


@dataclass
class _State:
    step: int


class Talker:
    """Needs a plan every ``every`` steps; says ``say`` when allowed; answering an interruption it
    keeps its plan unless ``switch``. Records every Talk it was given."""

    name = "talker"

    def __init__(
        self, every: int = 1, say: str | None = "hello", switch: bool = False, pause_s: float = 0.0, gauge: dict | None = None
    ) -> None:
        self.every, self.say, self.switch, self.pause_s = every, say, switch, pause_s
        self.talks: list[Talk] = []
        self.plan: str | None = None
        self.seat = -1
        self.gauge = gauge if gauge is not None else {"live": 0, "max": 0}  # deliberations in flight (shared by a team)

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat

    def prepare(self, obs: Observation, events: Sequence[Any]) -> bool:
        if obs.state.step % self.every == 0:
            self.plan = None
        return self.plan is None

    async def deliberate(self, obs: Observation, talk: Talk) -> Deliberation:
        self.talks.append(talk)
        self.gauge["live"] += 1
        self.gauge["max"] = max(self.gauge["max"], self.gauge["live"])
        await asyncio.sleep(self.pause_s)
        self.gauge["live"] -= 1
        keep = talk.current_plan is not None and not self.switch
        self.plan = talk.current_plan if keep else f"plan{self.seat}.{len(self.talks)}"
        return Deliberation(self.plan or "", self.say if talk.may_send else None, resumed=keep)

    def execute(self, obs: Observation) -> int:
        return self.seat

    async def act(self, obs: Observation, events: Sequence[Any]) -> int:
        raise AssertionError("a talker acts through MAEIL")

    def info(self) -> dict:
        return {}

    def episode_stats(self) -> dict:
        return {}

    async def aclose(self) -> None:
        return None


class Quiet:
    """No cognitive layer (a scripted partner): always ready, acts through `act`."""

    name = "quiet"

    def reset(self, seat: int, seed: int, first: Observation | None = None) -> None:
        self.seat = seat

    async def act(self, obs: Observation, events: Sequence[Any]) -> int:
        return 9

    def info(self) -> dict:
        return {}

    def episode_stats(self) -> dict:
        return {}

    async def aclose(self) -> None:
        return None


def _seated(team: list) -> list:
    """The agents reset in their seats (seat = list index)."""
    for seat, agent in enumerate(team):
        agent.reset(seat, 0)
    return team


def _step(maeil: Maeil, step: int = 0) -> tuple[int, ...]:
    n = len(maeil.team)
    obs = [Observation(s, _State(step), None, None, 0.0) for s in range(n)]
    return asyncio.run(maeil.step_actions(obs, []))


def _kinds(records: list[dict], kind: str) -> list[dict]:
    return [r for r in records if r["kind"] == kind]


def test_talkers_are_deliberative_and_partners_are_not() -> None:
    assert isinstance(Talker(), Deliberative) and not isinstance(Quiet(), Deliberative)


def test_individual_agents_plan_side_by_side_and_never_talk() -> None:
    team = _seated([Talker(), Talker(), Quiet()])
    maeil = Maeil(TopologyConfig(name="individual"), team)
    assert _step(maeil) == (0, 1, 9)
    m = maeil.metrics()
    assert (m["messages"], m["protocol_messages"], m["interruptions"], m["plans_new"], m["cognitive_rounds"]) == (0, 0, 0, 2, 1)
    assert all(not t.may_send and t.inbox == () for agent in team[:2] for t in agent.talks)
    assert maeil.log.stages() == {"0": "X", "1": "X"}


def test_centralized_leader_directs_followers_who_acknowledge() -> None:
    team = _seated([Talker(say="player 1: a; player 2: b"), Talker(), Talker()])
    maeil = Maeil(TopologyConfig(name="centralized", leader=0), team)
    _step(maeil)
    records = maeil.log.drain()
    messages = _kinds(records, "message")
    assert [(m["type"], m["from"], m["to"]) for m in messages] == [
        ("request", 1, [0]),
        ("request", 2, [0]),
        ("directive", 0, [1, 2]),
        ("ack", 1, [0]),
        ("ack", 2, [0]),
    ]
    leader, f1, _f2 = team
    assert [t.role for t in leader.talks] == ["leader"] and len(leader.talks[0].inbox) == 2 and leader.talks[0].may_send
    assert [t.role for t in f1.talks] == ["follower"] and f1.talks[0].inbox[0].text == "player 1: a; player 2: b"
    assert not f1.talks[0].may_send
    # the leader: R -> W, interrupted by the first ack -> I, resumes without a call -> W -> X
    path = [(r["from"], r["to"]) for r in _kinds(records, "stage") if r["agent"] == 0]
    assert path == [("W", "R"), ("R", "W"), ("W", "I"), ("I", "W"), ("W", "X")]
    m = maeil.metrics()
    assert (m["messages"], m["protocol_messages"], m["interruptions"], m["resumptions"], m["cognitive_rounds"]) == (1, 4, 1, 1, 2)
    assert m["messages_p0"] == 1 and m["messages_p1"] == 0 and m["message_imbalance"] == pytest.approx(2 ** 0.5)


def test_a_follower_needing_a_plan_interrupts_the_leader_and_the_others_adopt_its_directive() -> None:
    team = _seated([Talker(every=10, say="go"), Talker(every=1), Talker(every=10)])
    maeil = Maeil(TopologyConfig(name="centralized"), team)
    _step(maeil, 0)  # everyone plans at step 0
    maeil.log.drain()
    _step(maeil, 1)  # only follower 1 needs a plan
    records = maeil.log.drain()
    plans = [(r["agent"], r["outcome"]) for r in _kinds(records, "plan")]
    assert plans == [(0, "resumed"), (1, "new"), (2, "resumed"), (0, "resumed")]  # leader keeps its plan, directs anew
    assert team[2].talks[-1].current_plan == "plan2.1"  # told what it was executing


def test_debate_speakers_take_turns_in_seat_order_and_hear_the_earlier_ones() -> None:
    team = _seated([Talker(say="s0"), Talker(say="s1"), Talker(say="s2")])
    maeil = Maeil(TopologyConfig(name="debate"), team)
    _step(maeil)
    records = maeil.log.drain()
    assert [r["agent"] for r in _kinds(records, "plan")] == [0, 1, 2]
    said = [m["text"] for m in _kinds(records, "message") if m["type"] == "say"]
    assert said == ["s0", "s1", "s2"]
    assert [m.text for m in team[2].talks[0].inbox if m.kind == "say"] == ["s0", "s1"]
    m = maeil.metrics()
    assert (m["messages"], m["protocol_messages"], m["cognitive_rounds"], m["interruptions"]) == (3, 3, 3, 0)
    # what was said after an agent's turn waits in its buffer for its next deliberation
    assert [x.text for x in maeil.inbox[0] if x.kind == "say"] == ["s1", "s2"]


def test_debate_interrupts_agents_executing_a_plan_who_then_take_their_turn() -> None:
    team = _seated([Talker(every=1, say="s0"), Talker(every=5, say="s1", switch=True)])
    maeil = Maeil(TopologyConfig(name="debate"), team)
    _step(maeil, 0)
    maeil.log.drain()
    _step(maeil, 1)
    records = maeil.log.drain()
    assert [(r["agent"], r["outcome"]) for r in _kinds(records, "plan")] == [(0, "new"), (1, "replanned")]
    assert maeil.metrics()["replans"] == 1


def test_decentralized_messages_interrupt_within_the_budget_and_address_named_players() -> None:
    team = _seated([Talker(say="to player 2: meet at block 1"), Talker(), Talker()])
    maeil = Maeil(TopologyConfig(name="decentralized", message_budget=1), team)
    _step(maeil)
    records = maeil.log.drain()
    messages = _kinds(records, "message")
    assert [(m["from"], m["to"], m["text"]) for m in messages] == [
        (0, [2], "meet at block 1"),
        (1, [0, 2], "hello"),
        (2, [0, 1], "hello"),
    ]
    m = maeil.metrics()
    # round 1: all plan and speak; every receiver (now waiting) is interrupted once; round 2:
    # they resume, with no budget left to answer
    assert (m["messages"], m["interruptions"], m["plans_new"], m["resumptions"], m["cognitive_rounds"]) == (3, 3, 3, 3, 2)
    assert all(not t.may_send for agent in team for t in agent.talks[1:])


def test_a_budget_of_zero_means_no_messages() -> None:
    team = _seated([Talker(), Talker()])
    maeil = Maeil(TopologyConfig(name="decentralized", message_budget=0), team)
    _step(maeil)
    assert maeil.metrics()["messages"] == 0


def test_the_round_bound_forces_every_agent_ready() -> None:
    team = _seated([Talker(say="s0"), Talker(say="s1"), Talker(say="s2")])
    maeil = Maeil(TopologyConfig(name="debate", max_rounds=1), team)
    assert _step(maeil) == (0, 1, 2)  # agents 1 and 2 never had a turn: one last silent deliberation
    plans = _kinds(maeil.log.drain(), "plan")
    assert [p["agent"] for p in plans] == [0, 1, 2] and all(not t.may_send for t in team[1].talks)


def test_deliberations_of_one_round_run_concurrently() -> None:
    shared = {"live": 0, "max": 0}
    team = _seated([Talker(pause_s=0.01, gauge=shared), Talker(pause_s=0.01, gauge=shared), Talker(pause_s=0.01, gauge=shared)])
    maeil = Maeil(TopologyConfig(name="centralized"), team)
    _step(maeil)
    assert shared["max"] == 2  # the leader alone, then both followers at once


def test_plan_coherence_counts_plans_sharing_a_target() -> None:
    team = _seated([Talker(), Talker(), Talker()])
    maeil = Maeil(TopologyConfig(name="individual"), team, plan_target=lambda p: "a" if p.startswith(("plan0", "plan1")) else "b")
    _step(maeil)
    assert maeil.metrics()["plan_coherence"] == pytest.approx(2 / 3)


def test_unknown_topology_is_refused() -> None:
    with pytest.raises(ValueError, match="individual"):
        TopologyConfig(name="anarchy")  # type: ignore[arg-type]


def test_broadcast_chain_speakers_plan_in_order_and_read_exactly_the_earlier_proposals() -> None:
    team = _seated([Talker(say="s0"), Talker(say="s1"), Talker(say="s2")])
    maeil = Maeil(TopologyConfig(name="broadcast_chain"), team)
    _step(maeil)
    records = maeil.log.drain()
    assert [r["agent"] for r in _kinds(records, "plan")] == [0, 1, 2]
    sent = [(m["from"], m["to"], m["text"]) for m in _kinds(records, "message")]
    assert sent == [(0, [1, 2], "proposed plan: plan0.1. s0"), (1, [2], "proposed plan: plan1.1. s1")]  # the last speaker sends nothing
    assert [m.text for m in team[0].talks[0].inbox] == []
    assert [m.text for m in team[1].talks[0].inbox] == ["proposed plan: plan0.1. s0"]
    assert [m.text for m in team[2].talks[0].inbox] == ["proposed plan: plan0.1. s0", "proposed plan: plan1.1. s1"]
    assert [t.may_send for t in (team[0].talks[0], team[1].talks[0], team[2].talks[0])] == [True, True, False]
    assert [t.role for t in (team[0].talks[0], team[1].talks[0], team[2].talks[0])] == ["first speaker", "speaker 2 of 3", "final speaker"]
    assert maeil.metrics()["cognitive_rounds"] == 3


def test_broadcast_chain_interrupts_only_later_speakers_and_each_once_a_phase() -> None:
    # seat 1 replans every step; seats 0 and 2 keep running plans: 1's proposal interrupts 2, never 0
    team = _seated([Talker(every=50, say=None), Talker(every=1, say=None), Talker(every=50, say=None, switch=True)])
    maeil = Maeil(TopologyConfig(name="broadcast_chain"), team)
    _step(maeil, 0)
    maeil.log.drain()
    _step(maeil, 1)
    records = maeil.log.drain()
    assert [(r["agent"], r["outcome"]) for r in _kinds(records, "plan")] == [(1, "new"), (2, "replanned")]
    assert [(m["from"], m["to"]) for m in _kinds(records, "message")] == [(1, [2])]
    assert maeil.inbox[0] == []  # an earlier speaker never hears a later one
    assert maeil.metrics()["interruptions"] == 1


def test_broadcast_chain_skips_partners_without_a_cognitive_layer() -> None:
    team = _seated([Talker(say="a"), Quiet(), Talker(say="b")])
    maeil = Maeil(TopologyConfig(name="broadcast_chain"), team)
    actions = _step(maeil)
    assert actions == (0, 9, 2)
    assert [(m["from"], m["to"]) for m in _kinds(maeil.log.drain(), "message")] == [(0, [2])]
