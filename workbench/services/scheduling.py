"""The seeded, counterbalanced schedule of a campaign, as pure functions of their inputs.

Which comparisons are drawn (all pairs, pairs with an anchor, or a balanced random sample), who
is shown left, and in which order tasks come, all follow from the seed and from inputs sorted
by stable keys (source, external id, model name), never by row ids: the same seed over the same
content gives the same schedule in any bundle.

Counterbalancing: within each pair of contestants, the comparisons alternate who is on the left
after a seeded shuffle, so the left/right counts of a pair differ by at most one. The pairs with
an odd number of comparisons each leave one contestant with an extra left; those extras are
oriented along an Euler circuit, so that over the whole schedule every contestant is also shown
left and right equally often, within one.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from itertools import combinations
from typing import Literal


class Pairing(StrEnum):
    """How the comparisons of a campaign are drawn."""

    ALL = "all"  # every pair of contestants on every slot where both can appear
    ANCHOR = "anchor"  # every contestant against one anchor (a model or the reference)
    BALANCED = "balanced"  # a target number of slots per contestant pair, sampled at random


class ReferenceSide(Enum):
    """The reference answer taking part in a comparison as if it were a model's output."""

    REFERENCE = "reference"


REFERENCE = ReferenceSide.REFERENCE

#: a model (by name) or the reference answer
Contestant = str | Literal[ReferenceSide.REFERENCE]


def contestant_key(contestant: Contestant) -> tuple[int, str]:
    """A total order on contestants: the reference first, then models by name."""
    return (0, "") if contestant is REFERENCE else (1, str(contestant))


@dataclass(frozen=True, order=True, slots=True)
class Slot:
    """What is judged: an item (by stable key) and, for per-turn protocols, one of its turns."""

    source: str
    external_id: str
    turn_index: int | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two contestants on one slot, unordered; ``gold`` is a known answer from ``first``'s side
    ("a" means ``first`` is better)."""

    slot: Slot
    first: Contestant | None
    second: Contestant | None
    gold: str | None = None

    def reversed(self) -> Comparison:
        return Comparison(self.slot, self.second, self.first, _swap_answer(self.gold))


@dataclass(frozen=True, slots=True)
class PlannedTask:
    """A scheduled task: who is shown left (Response 1) and right (Response 2).

    Single-output tasks have only ``left``; verification tasks have neither. ``gold`` is the
    known answer as seen on screen ("a" = the left response is better).
    """

    slot: Slot
    left: Contestant | None
    right: Contestant | None
    gold: str | None = None


class ScheduleError(ValueError):
    """The inputs cannot give a schedule (no eligible comparison, an anchor nowhere eligible)."""


def _swap_answer(answer: str | None) -> str | None:
    return {"a": "b", "b": "a"}.get(answer, answer) if answer is not None else None


def _sorted(contestants: Iterable[Contestant]) -> list[Contestant]:
    return sorted(set(contestants), key=contestant_key)


def all_pairs(eligible: Mapping[Slot, Iterable[Contestant]]) -> list[Comparison]:
    """Every pair of contestants on every slot where both are eligible."""
    return [
        Comparison(slot, first, second)
        for slot in sorted(eligible)
        for first, second in combinations(_sorted(eligible[slot]), 2)
    ]


def anchored_pairs(
    eligible: Mapping[Slot, Iterable[Contestant]], anchor: Contestant
) -> list[Comparison]:
    """The anchor against every other contestant, on every slot where the anchor is eligible."""
    comparisons: list[Comparison] = []
    for slot in sorted(eligible):
        contestants = _sorted(eligible[slot])
        if anchor in contestants:
            comparisons.extend(
                Comparison(slot, anchor, other) for other in contestants if other != anchor
            )
    return comparisons


def _least_used(
    candidates: Sequence[Slot], usage: Counter[Slot], count: int, rng: random.Random
) -> list[Slot]:
    # Random keys are drawn for candidates in sorted order so the draw is reproducible; slots
    # already used by other pairs come last, which spreads a sample over as many items as it can.
    keyed = [(usage[slot], rng.random(), slot) for slot in sorted(candidates)]
    chosen = [slot for _, _, slot in sorted(keyed)[:count]]
    usage.update(chosen)
    return chosen


def balanced_pairs(
    eligible: Mapping[Slot, Iterable[Contestant]],
    per_pair: int,
    rng: random.Random,
    anchor: Contestant | None = None,
) -> tuple[list[Comparison], dict[tuple[Contestant, Contestant], int]]:
    """``per_pair`` slots for every pair of contestants (with ``anchor``: every pair that
    includes it), sampled at random among the slots where both are eligible.

    Returns the comparisons and, for pairs with fewer eligible slots than asked, how many
    comparisons are missing.
    """
    slots_of: dict[tuple[Contestant, Contestant], list[Slot]] = defaultdict(list)
    for slot in sorted(eligible):
        for pair in combinations(_sorted(eligible[slot]), 2):
            if anchor is None or anchor in pair:
                slots_of[pair].append(slot)
    every_contestant = _sorted(c for contestants in eligible.values() for c in contestants)
    wanted = [
        pair for pair in combinations(every_contestant, 2) if anchor is None or anchor in pair
    ]
    order = list(wanted)
    rng.shuffle(order)
    usage: Counter[Slot] = Counter()
    comparisons: list[Comparison] = []
    shortfalls: dict[tuple[Contestant, Contestant], int] = {}
    for pair in order:
        chosen = _least_used(slots_of.get(pair, []), usage, per_pair, rng)
        comparisons.extend(Comparison(slot, *pair) for slot in chosen)
        if len(chosen) < per_pair:
            shortfalls[pair] = per_pair - len(chosen)
    return comparisons, shortfalls


def single_tasks(
    eligible: Mapping[Slot, Iterable[Contestant]],
    rng: random.Random,
    per_contestant: int | None = None,
) -> tuple[list[PlannedTask], dict[Contestant, int]]:
    """Tasks that show one contestant's output: on every eligible slot, or on
    ``per_contestant`` slots sampled at random. Returns the tasks and the shortfalls."""
    slots_of: dict[Contestant, list[Slot]] = defaultdict(list)
    for slot in sorted(eligible):
        for contestant in _sorted(eligible[slot]):
            slots_of[contestant].append(slot)
    tasks: list[PlannedTask] = []
    shortfalls: dict[Contestant, int] = {}
    usage: Counter[Slot] = Counter()
    for contestant in _sorted(slots_of):
        slots = slots_of[contestant]
        if per_contestant is not None:
            slots = _least_used(slots, usage, per_contestant, rng)
            if len(slots) < per_contestant:
                shortfalls[contestant] = per_contestant - len(slots)
        tasks.extend(PlannedTask(slot, contestant, None) for slot in slots)
    return tasks, shortfalls


def _extra_left(
    odd_pairs: Sequence[tuple[Contestant, Contestant]], rng: random.Random
) -> dict[tuple[Contestant, Contestant], Contestant]:
    """For each pair with an odd number of comparisons, the contestant that gets the extra left,
    chosen so that no contestant collects more than one extra left (or right) overall.

    The odd pairs form a graph; joining every odd-degree node to one extra node makes all degrees
    even, so each component has an Euler circuit. Walking it, every node is left as often as it
    is entered; dropping the extra node's edges (at most one per node) leaves imbalances of one.
    """
    import networkx as nx  # on first use: importing the CLI or an export must not load it

    padding = object()

    def node_key(node: object) -> tuple[int, str]:
        return (2, "") if node is padding else contestant_key(node)  # type: ignore[arg-type]

    graph: nx.Graph[object] = nx.Graph()  # contestants and the padding node
    shuffled_pairs = list(odd_pairs)
    rng.shuffle(shuffled_pairs)
    graph.add_edges_from(shuffled_pairs)
    for node in sorted((n for n, degree in graph.degree() if degree % 2), key=node_key):
        graph.add_edge(padding, node)
    extra: dict[tuple[Contestant, Contestant], Contestant] = {}
    components = sorted(
        (sorted(component, key=node_key) for component in nx.connected_components(graph)),
        key=lambda nodes: node_key(nodes[0]),
    )
    for nodes in components:
        start = nodes[rng.randrange(len(nodes))]
        # A fresh graph with the edges in the big graph's (insertion) order: networkx's subgraph
        # views iterate a set of the nodes, whose order follows hashes (per-process for strings,
        # per-object for the padding node), which made the same seed give another schedule.
        members = set(nodes)
        component: nx.Graph[object] = nx.Graph()
        component.add_edges_from(edge for edge in graph.edges() if edge[0] in members)
        circuit = list(nx.eulerian_circuit(component, source=start))
        if rng.random() < 0.5:
            circuit = [(v, u) for u, v in reversed(circuit)]
        for left, right in circuit:
            if left is padding or right is padding:
                continue
            pair = (left, right) if contestant_key(left) < contestant_key(right) else (right, left)
            extra[pair] = left
    return extra


def counterbalance(comparisons: Sequence[Comparison], rng: random.Random) -> list[PlannedTask]:
    """Decide who is shown left in every comparison (see the module docstring)."""
    groups: dict[tuple[Contestant, Contestant], list[Comparison]] = defaultdict(list)
    for comparison in comparisons:
        if comparison.first is None or comparison.second is None:
            raise ScheduleError("a pairwise comparison needs two contestants")
        first, second = comparison.first, comparison.second
        if contestant_key(first) > contestant_key(second):
            comparison = comparison.reversed()
            first, second = second, first
        groups[(first, second)].append(comparison)
    pair_order = sorted(groups, key=lambda pair: (contestant_key(pair[0]), contestant_key(pair[1])))
    extra = _extra_left([pair for pair in pair_order if len(groups[pair]) % 2], rng)
    tasks: list[PlannedTask] = []
    for pair in pair_order:
        group = sorted(groups[pair], key=lambda c: (c.slot, c.gold or ""))
        rng.shuffle(group)
        first, second = pair
        starts_left = extra.get(pair, first if rng.random() < 0.5 else second)
        for position, comparison in enumerate(group):
            if (starts_left == first) == (position % 2 == 0):
                tasks.append(PlannedTask(comparison.slot, first, second, comparison.gold))
            else:
                tasks.append(
                    PlannedTask(comparison.slot, second, first, _swap_answer(comparison.gold))
                )
    return tasks


def shuffled(tasks: Sequence[PlannedTask], rng: random.Random) -> list[PlannedTask]:
    """The order annotators meet the tasks in: a seeded shuffle, so that neither a model, an
    item nor an attention check clusters in one part of the campaign."""
    ordered = list(tasks)
    rng.shuffle(ordered)
    return ordered


def position_counts(tasks: Iterable[PlannedTask]) -> dict[Contestant, tuple[int, int]]:
    """(times shown left, times shown right) per contestant of pairwise tasks."""
    counts: dict[Contestant, list[int]] = defaultdict(lambda: [0, 0])
    for task in tasks:
        if task.left is not None and task.right is not None:
            counts[task.left][0] += 1
            counts[task.right][1] += 1
    return {contestant: (left, right) for contestant, (left, right) in counts.items()}
