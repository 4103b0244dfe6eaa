"""Adaptive campaigns: the next task's model pair chosen at hand-out time from the campaign's
votes so far, by the active-sampling rule of :mod:`workbench.stats.active_sampling`, and every
choice logged with the state it came from so that it can be made again.

A campaign's schedule is drawn as for uniform pairing (every comparison its items allow,
counterbalanced and shuffled by the seed); what adaptive pairing changes is the order tasks are
handed out in. At each hand-out the candidate pairs are the model pairs of the campaign's
ordinary tasks (the reference answer counts as a contestant where a protocol shows it as a
response); their battles so far are counted from the standing votes on the protocol's first
criterion ("a" and "b" a win, "tie" and "both_bad" a tie); the rule gives each candidate a
probability; the pairs without a task open to the annotator get none; the draw, a function of
the campaign's seed and the choice's ordinal alone, picks a pair; and the task handed out is
that pair's first open task in schedule order, shown in the order ``services.shown_order``
gives, as a uniform campaign's would be. The choice and the lease are one transaction, and a
server's hand-outs of one adaptive campaign take the campaign's row lock first, so ordinals
and states follow one another.

The log (``pair_choices``, schema 0009) keeps per choice its ordinal, draw, the digests of the
state and of the probabilities, the candidates open, the pair drawn, the task, and the UUIDs of
the votes counted since the previous choice (and of those retracted since): the order of
votes. :func:`replay_choices` walks the log, rebuilds each state from those votes, and makes
every choice again; the first difference is reported.
"""

from __future__ import annotations

import hashlib
import math
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from sqlalchemy import and_, case, event, func, or_, select
from sqlalchemy.orm import Session

from workbench.services.campaign_errors import CampaignError
from workbench.services.campaign_items import REFERENCE_NAME
from workbench.services.campaign_settings import (
    DESIGN_PAIR_RULE,
    PUBLISHED_PAIR_RULE,
    changed_settings,
    settings_of,
)
from workbench.services.campaigns import campaign_protocol, find_campaign
from workbench.services.pair_choice import (
    ADAPTIVE,
    check_pair_choice,
    pair_choice,
)
from workbench.stats.active_sampling import (
    PairChoiceState,
    PairWeights,
    choice_draw,
    design_weights,
    draw_pair,
    pair_weights,
)
from workbench.storage.bundle import Bundle
from workbench.storage.models import (
    Campaign,
    CampaignCount,
    CampaignPairCount,
    Model,
    PairChoice,
    ScheduledPair,
    Vote,
)

#: where a choice was made: a task handed out in the app, or one packed for an offline pack
ORIGIN_LEASE = "lease"
ORIGIN_PACK = "pack"
#: the contestant key of the reference answer (model ids start at 1)
REFERENCE_KEY = 0
#: a vote's choice as a battle outcome of the task's scheduled left model
WIN_LEFT, WIN_RIGHT, TIED = "a", "b", ("tie", "both_bad")
#: ratings are fitted in natural log-odds; the monitor shows Elo points (400 per factor of 10)
ELO_PER_LOG_ODDS = 400 / math.log(10)
#: the normal quantile of the monitor's 95% intervals
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class Candidates:
    """The model pairs a campaign's ordinary tasks compare: ``contestants`` are contestant keys
    (model ids, :data:`REFERENCE_KEY` for the reference answer) in ascending order, ``pairs``
    index them (first < second) in ascending order, and ``by_keys`` maps a pair of keys (the
    smaller first) to its place in ``pairs``."""

    contestants: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    by_keys: Mapping[tuple[int, int], int]

    def index_of(self, left: int, right: int) -> int:
        """The candidate pair of two contestant keys, in either order."""
        return self.by_keys[(left, right) if left <= right else (right, left)]

    def index_of_task(self, left: int | None, right: int | None) -> int | None:
        """The candidate pair of a task's two model ids (None: the reference answer), None
        when they are no candidate pair."""
        a, b = sorted((_key(left), _key(right)))
        return self.by_keys.get((a, b))


def _key(model_id: int | None) -> int:
    return REFERENCE_KEY if model_id is None else model_id


def campaign_candidates(session: Session, campaign_id: int) -> Candidates:
    """The candidate pairs of a campaign: the distinct model pairs of its ordinary tasks."""
    rows = session.execute(
        select(ScheduledPair.left_model_id, ScheduledPair.right_model_id)
        .where(ScheduledPair.campaign_id == campaign_id, ScheduledPair.gold_choice.is_(None))
        .distinct()
    ).all()
    return _candidates_of(rows)


def _candidates_of(rows: Iterable[tuple[int | None, int | None]]) -> Candidates:
    keyed = {tuple(sorted((_key(left), _key(right)))) for left, right in rows}
    contestants = tuple(sorted({key for pair in keyed for key in pair}))
    position = {key: index for index, key in enumerate(contestants)}
    pairs = tuple(sorted((position[a], position[b]) for a, b in keyed))
    by_keys = {(contestants[a], contestants[b]): number for number, (a, b) in enumerate(pairs)}
    return Candidates(contestants, pairs, by_keys)


Battle = tuple[int, int, str]  # (left contestant key, right contestant key, choice)


def _countable(criterion: str) -> Any:
    """The conditions a vote meets to count as a battle, bar its retraction."""
    return (
        Vote.skip_reason.is_(None),
        Vote.criterion == criterion,
        Vote.choice.in_([WIN_LEFT, WIN_RIGHT, *TIED]),
        ScheduledPair.gold_choice.is_(None),
    )


def _first_criterion(campaign: Campaign) -> str:
    return settings_of(campaign).criterion


def counted_votes(session: Session, campaign: Campaign) -> dict[str, Battle]:
    """The campaign's votes that count now, by UUID."""
    statement = (
        select(Vote.uuid, ScheduledPair.left_model_id, ScheduledPair.right_model_id, Vote.choice)
        .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
        .where(
            Vote.campaign_id == campaign.id,
            Vote.retracted_at.is_(None),
            *_countable(_first_criterion(campaign)),
        )
    )
    # model ids start at 1, so ``or`` maps the reference answer's None to REFERENCE_KEY; the
    # choice is one of the countable ones, never None
    return {
        uuid: (left or REFERENCE_KEY, right or REFERENCE_KEY, cast(str, choice))
        for uuid, left, right, choice in session.execute(statement)
    }


def build_state(candidates: Candidates, battles: Iterable[Battle]) -> PairChoiceState:
    """The rule's state: each candidate pair's wins of its first and second contestant, and
    ties, over ``battles``."""
    count = len(candidates.pairs)
    wins_first, wins_second, ties = np.zeros(count), np.zeros(count), np.zeros(count)
    index = candidates.index_of
    # battles repeat a few (pair, outcome) kinds many times: count the kinds first
    for (left, right, choice), times in Counter(battles).items():
        number = index(left, right)
        left_is_first = left <= right
        if choice in TIED:
            ties[number] += times
        elif (choice == WIN_LEFT) == left_is_first:
            wins_first[number] += times
        else:
            wins_second[number] += times
    pairs = np.array(candidates.pairs, dtype=np.int64).reshape(-1, 2)
    return PairChoiceState(
        models=len(candidates.contestants),
        first=pairs[:, 0],
        second=pairs[:, 1],
        wins_first=wins_first,
        wins_second=wins_second,
        ties=ties,
    )


def probabilities_digest(probabilities: np.ndarray, rule: str = PUBLISHED_PAIR_RULE) -> str:
    """A SHA-256 of the rule's name and the probabilities written to 12 significant digits (the
    last bits of a linear solve may differ between machines; a choice does not). The published
    rule's digest has no name in it, as it was logged before rules had names."""
    text = ",".join(f"{value:.12g}" for value in probabilities)
    if rule != PUBLISHED_PAIR_RULE:
        text = f"{rule}:{text}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ChoiceRule:
    """How a campaign weighs its candidate pairs: the rule's name and the votes the campaign
    plans (its ordinary tasks times its votes per task), which the design plans up to."""

    name: str
    planned_votes: int

    def weights(self, state: PairChoiceState) -> PairWeights:
        if self.name == DESIGN_PAIR_RULE:
            return design_weights(state, self.planned_votes)
        return pair_weights(state)


def choice_rule(session: Session, campaign: Campaign) -> ChoiceRule:
    """The campaign's rule (its settings; the published one when they name none) and its
    planned votes (from the campaign counters, which its schedule fixes at creation)."""
    counts = session.get(CampaignCount, campaign.id)
    if counts is None:
        tasks = session.scalar(
            select(func.count()).where(
                ScheduledPair.campaign_id == campaign.id, ScheduledPair.gold_choice.is_(None)
            )
        )
        ordinary = tasks or 0
    else:
        ordinary = counts.tasks - counts.gold_tasks
    return ChoiceRule(settings_of(campaign).adaptive_rule, ordinary * campaign.votes_per_pair)


def _masked(probabilities: np.ndarray, available: Sequence[int]) -> np.ndarray:
    masked = np.zeros_like(probabilities)
    masked[list(available)] = probabilities[list(available)]
    return masked


@dataclass(frozen=True)
class OpenTask:
    """A task the annotator may be given: its id, place in the schedule and models."""

    pair_id: int
    sequence: int
    left: int | None
    right: int | None


@dataclass(frozen=True)
class _LoggedPrefix:
    """The votes counted as of a campaign's choice ``ordinal``, with that choice's row
    (id, state digest, task) to check that the log read later is the one this was read from."""

    ordinal: int
    row: tuple[int, str, int]
    logged: frozenset[str]


#: per engine and campaign, the logged votes as of the last choice committed through it: the log
#: only grows, so a hand-out reads the choices after that one instead of the whole log (at 30,000
#: choices, decoding every row's vote list was most of a hand-out's time)
_LOGGED_PREFIXES: weakref.WeakKeyDictionary[Any, dict[int, _LoggedPrefix]] = (
    weakref.WeakKeyDictionary()
)
_PENDING = "adaptive_logged_prefixes"


def _log_state(session: Session, campaign_id: int) -> tuple[int, set[str]]:
    """The last ordinal logged and the votes counted as of it: the prefix remembered for this
    engine (if its last row is still the one it was read from), then the rows after it."""
    bind = session.get_bind()
    cached = _LOGGED_PREFIXES.get(bind, {}).get(campaign_id)
    if cached is not None:
        row = session.execute(
            select(PairChoice.id, PairChoice.state_sha256, PairChoice.pair_id).where(
                PairChoice.campaign_id == campaign_id, PairChoice.ordinal == cached.ordinal
            )
        ).first()
        if row is None or tuple(row) != cached.row:
            cached = None
    last = 0 if cached is None else cached.ordinal
    counted = set() if cached is None else set(cached.logged)
    for ordinal, added, removed in session.execute(
        select(PairChoice.ordinal, PairChoice.votes_added, PairChoice.votes_removed)
        .where(PairChoice.campaign_id == campaign_id, PairChoice.ordinal > last)
        .order_by(PairChoice.ordinal)
    ):
        counted.difference_update(removed)
        counted.update(added)
        last = ordinal
    return last, counted


def _remember_after_commit(
    session: Session, campaign_id: int, row: PairChoice, logged: set[str]
) -> None:
    """Remember the logged votes as of ``row`` for the next hand-out, once (and only if) the
    transaction that wrote it commits."""
    if _PENDING not in session.info:
        event.listen(session, "after_commit", _publish)
        event.listen(session, "after_soft_rollback", _forget)
    pending = session.info.setdefault(_PENDING, {})
    prefix = _LoggedPrefix(row.ordinal, (row.id, row.state_sha256, row.pair_id), frozenset(logged))
    pending[(session.get_bind(), campaign_id)] = prefix


def _publish(session: Session) -> None:
    pending = session.info.get(_PENDING)
    for (bind, campaign_id), prefix in (pending or {}).items():
        _LOGGED_PREFIXES.setdefault(bind, {})[campaign_id] = prefix
    if pending:
        pending.clear()


def _forget(session: Session, previous_transaction: Any) -> None:
    pending = session.info.get(_PENDING)
    if pending:
        pending.clear()


def lock_campaign(session: Session, campaign_id: int) -> None:
    """Take the campaign's row lock until the transaction ends, so a server's choices of one
    campaign follow one another (a no-op on SQLite, whose writers are serialized)."""
    session.execute(select(Campaign.id).where(Campaign.id == campaign_id).with_for_update())


def choose_tasks(
    session: Session,
    campaign: Campaign,
    annotator_id: int | None,
    maybe_open: Iterable[int],
    first_open: Callable[[int], int | None],
    count: int,
    origin: str,
    candidates: Candidates | None = None,
) -> list[int]:
    """Choose up to ``count`` tasks one after another by the rule, logging each choice; the
    caller holds the campaign's row lock (:func:`lock_campaign`) and leases the tasks in the
    same transaction. Every choice of a batch is made from the same votes (none can arrive in
    between).

    ``maybe_open`` are the candidate pairs (indices of :func:`campaign_candidates`) that may
    have a task open to the annotator, ``first_open(pair)`` the first such task not taken yet
    (None when there is none): a pair drawn without one leaves the open set and the same draw
    falls again, so the logged open set is the one the choice was made among."""
    candidates = candidates or campaign_candidates(session, campaign.id)
    if not candidates.pairs:
        return []
    votes = counted_votes(session, campaign)
    last, logged = _log_state(session, campaign.id)
    state = build_state(candidates, votes.values())
    rule = choice_rule(session, campaign)
    probabilities = rule.weights(state).probabilities
    state_digest = state.digest()
    digest = probabilities_digest(probabilities, rule.name)
    available = sorted(set(maybe_open))
    added = sorted(set(votes) - logged)
    removed = sorted(logged - set(votes))
    chosen_ids: list[int] = []
    last_row: PairChoice | None = None
    while len(chosen_ids) < count and available:
        draw = choice_draw(campaign.seed, last + 1)
        pair_id = None
        while available:
            chosen = draw_pair(_masked(probabilities, available), draw)
            pair_id = first_open(chosen)
            if pair_id is not None:
                break
            available.remove(chosen)
        if pair_id is None:
            break
        last += 1
        row = PairChoice(
            campaign_id=campaign.id,
            ordinal=last,
            draw=draw,
            state_sha256=state_digest,
            probabilities_sha256=digest,
            available=list(available),
            chosen=chosen,
            pair_id=pair_id,
            annotator_id=annotator_id,
            votes_added=added,
            votes_removed=removed,
            origin=origin,
        )
        session.add(row)
        logged.difference_update(removed)
        logged.update(added)
        added, removed = [], []
        chosen_ids.append(pair_id)
        last_row = row
    session.flush()
    if last_row is not None:
        _remember_after_commit(session, campaign.id, last_row, logged)
    return chosen_ids


def choose_among(
    session: Session,
    campaign: Campaign,
    annotator_id: int | None,
    open_tasks: Sequence[OpenTask],
    count: int,
    origin: str,
) -> list[int]:
    """:func:`choose_tasks` among a list of the tasks open to the annotator (an offline pack's
    batch), each pair's in schedule order."""
    candidates = campaign_candidates(session, campaign.id)
    by_pair: dict[int, list[OpenTask]] = {}
    for task in sorted(open_tasks, key=lambda task: task.sequence):
        number = candidates.index_of_task(task.left, task.right)
        if number is not None:
            by_pair.setdefault(number, []).append(task)

    def first_open(number: int) -> int | None:
        tasks = by_pair.get(number)
        return tasks.pop(0).pair_id if tasks else None

    return choose_tasks(
        session, campaign, annotator_id, by_pair, first_open, count, origin, candidates
    )


def candidates_and_unfinished(session: Session, campaign_id: int) -> tuple[Candidates, list[int]]:
    """The candidate pairs (:func:`campaign_candidates`) and, in the same scan of the campaign's
    tasks, those with an ordinary task short of its votes by the campaign counters (leases and
    who answered are the hand-out's to check)."""
    short = func.max(
        case(
            (func.coalesce(CampaignPairCount.votes, 0) < ScheduledPair.votes_target, 1),
            else_=0,
        )
    )
    rows = session.execute(
        select(ScheduledPair.left_model_id, ScheduledPair.right_model_id, short)
        .outerjoin(CampaignPairCount, CampaignPairCount.pair_id == ScheduledPair.id)
        .where(ScheduledPair.campaign_id == campaign_id, ScheduledPair.gold_choice.is_(None))
        .group_by(ScheduledPair.left_model_id, ScheduledPair.right_model_id)
    ).all()
    candidates = _candidates_of((left, right) for left, right, _ in rows)
    numbers = {candidates.index_of_task(left, right) for left, right, open_ in rows if open_}
    return candidates, sorted(number for number in numbers if number is not None)


def pair_models(candidates: Candidates, number: int) -> tuple[int | None, int | None]:
    """The model ids of a candidate pair (None for the reference answer), smaller key first."""
    first, second = candidates.pairs[number]
    a, b = candidates.contestants[first], candidates.contestants[second]
    return (None if a == REFERENCE_KEY else a), (None if b == REFERENCE_KEY else b)


def of_pair(candidates: Candidates, number: int) -> Any:
    """A WHERE clause: the task compares the candidate pair ``number``, in either order."""
    a, b = pair_models(candidates, number)

    def side(column: Any, model: int | None) -> Any:
        return column.is_(None) if model is None else column == model

    left, right = ScheduledPair.left_model_id, ScheduledPair.right_model_id
    return or_(and_(side(left, a), side(right, b)), and_(side(left, b), side(right, a)))


def gold_due(session: Session, campaign_id: int, gold_sequence: int) -> bool:
    """Whether an attention check at ``gold_sequence`` is due in an adaptive campaign, whose
    tasks are not handed out in schedule order: once the campaign's share of complete tasks has
    reached the check's place in the schedule."""
    counts = session.get(CampaignCount, campaign_id)
    if counts is None or counts.tasks == 0:
        return True
    before = session.scalar(
        select(func.count()).where(
            ScheduledPair.campaign_id == campaign_id, ScheduledPair.sequence < gold_sequence
        )
    )
    ordinary = max(counts.tasks - counts.gold_tasks, 1)
    return counts.complete_tasks / ordinary >= (before or 0) / counts.tasks


# --- switching ---------------------------------------------------------------------------------


def set_pair_choice(bundle: Bundle, name: str, choice: str) -> str:
    """Switch a campaign between uniform and adaptive pairing; refused once it has a vote (its
    choices so far were made one way, and the other would not account for them). Returns the
    pairing it had."""
    with bundle.session() as session:
        campaign = find_campaign(session, name)
        check_pair_choice(choice, campaign_protocol(campaign).display)
        before = pair_choice(campaign.settings, campaign.name)
        votes = session.scalar(select(func.count()).where(Vote.campaign_id == campaign.id)) or 0
        if votes and choice != before:
            raise CampaignError(
                f"campaign '{name}' has {votes} vote(s): its pairing ({before}) cannot change "
                "once voting has started; create a new campaign with --pairing "
                f"{choice} instead"
            )
        if choice == ADAPTIVE and before != ADAPTIVE:
            # a campaign made adaptive now chooses by the current rule, as one created so would
            campaign.settings = changed_settings(
                campaign, pair_choice=choice, pair_rule=DESIGN_PAIR_RULE
            )
        else:
            campaign.settings = changed_settings(campaign, pair_choice=choice)
    return before


# --- replay ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChoiceReplay:
    """What a replay of a campaign's choice log found: how many choices it made again and the
    first that came out different (None: every one matched)."""

    campaign: str
    pairing: str
    choices: int
    replayed: int
    first_mismatch: dict[str, Any] | None

    @property
    def ok(self) -> bool:
        return self.first_mismatch is None

    def to_json(self) -> dict[str, Any]:
        return {
            "campaign": self.campaign,
            "pairing": self.pairing,
            "choices": self.choices,
            "replayed": self.replayed,
            "ok": self.ok,
            "first_mismatch": self.first_mismatch,
        }


def replay_choices(bundle: Bundle, name: str) -> ChoiceReplay:
    """Make every logged choice of the campaign again from its seed and the order of votes the
    log records, and report the first that differs (its ordinal, what differs, the value
    recomputed and the value logged)."""
    with bundle.read_session() as session:
        campaign = find_campaign(session, name)
        candidates = campaign_candidates(session, campaign.id)
        statement = (
            select(
                Vote.uuid, ScheduledPair.left_model_id, ScheduledPair.right_model_id, Vote.choice
            )
            .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
            .where(Vote.campaign_id == campaign.id, *_countable(_first_criterion(campaign)))
        )
        battles = {
            uuid: (_key(left), _key(right), str(choice))
            for uuid, left, right, choice in session.execute(statement)
        }
        tasks = {
            pair_id: (left, right)
            for pair_id, left, right in session.execute(
                select(
                    ScheduledPair.id, ScheduledPair.left_model_id, ScheduledPair.right_model_id
                ).where(ScheduledPair.campaign_id == campaign.id)
            )
        }
        log = list(
            session.scalars(
                select(PairChoice)
                .where(PairChoice.campaign_id == campaign.id)
                .order_by(PairChoice.ordinal)
            )
        )
        seed = campaign.seed
        pairing = pair_choice(campaign.settings, campaign.name)
        rule = choice_rule(session, campaign)

    def mismatch(row: PairChoice, what: str, recomputed: Any, logged: Any) -> ChoiceReplay:
        return ChoiceReplay(
            name,
            pairing,
            len(log),
            row.ordinal - 1,
            {"ordinal": row.ordinal, "what": what, "recomputed": recomputed, "logged": logged},
        )

    counted: dict[str, Battle] = {}
    state: PairChoiceState | None = None
    probabilities = np.zeros(0)
    for expected, row in enumerate(log, start=1):
        if row.ordinal != expected:
            return mismatch(row, "ordinal", expected, row.ordinal)
        unknown = [uuid for uuid in row.votes_added if uuid not in battles]
        if unknown:
            return mismatch(row, "votes_added", "votes of this campaign", unknown[:3])
        stray = [uuid for uuid in row.votes_removed if uuid not in counted]
        if stray:
            return mismatch(row, "votes_removed", "votes counted before", stray[:3])
        if row.votes_added or row.votes_removed or state is None:
            for uuid in row.votes_removed:
                del counted[uuid]
            counted.update((uuid, battles[uuid]) for uuid in row.votes_added)
            state = build_state(candidates, counted.values())
            probabilities = rule.weights(state).probabilities
        if state.digest() != row.state_sha256:
            return mismatch(row, "state_sha256", state.digest(), row.state_sha256)
        digest = probabilities_digest(probabilities, rule.name)
        if digest != row.probabilities_sha256:
            return mismatch(row, "probabilities_sha256", digest, row.probabilities_sha256)
        draw = choice_draw(seed, row.ordinal)
        if draw != row.draw:
            return mismatch(row, "draw", draw, row.draw)
        available = [number for number in row.available if 0 <= number < len(probabilities)]
        if not available or available != list(row.available):
            return mismatch(row, "available", "candidate pair indices", list(row.available))
        chosen = draw_pair(_masked(probabilities, available), draw)
        if chosen != row.chosen:
            return mismatch(row, "chosen", chosen, row.chosen)
        task = tasks.get(row.pair_id)
        handed = None if task is None else candidates.index_of_task(*task)
        if handed != chosen:
            return mismatch(row, "task", f"a task of pair {chosen}", handed)
    return ChoiceReplay(name, pairing, len(log), len(log), None)


# --- the monitor -------------------------------------------------------------------------------


def adaptive_standing(session: Session, campaign: Campaign) -> dict[str, Any]:
    """Where an adaptive campaign's ratings stand: per candidate pair, its battles, the rating
    difference with its 95% interval (Elo points) and whether the order is settled (the
    interval excludes 0), unresolved pairs first; and the choices logged. The monitor and
    ``campaign status`` show it."""
    candidates = campaign_candidates(session, campaign.id)
    names = dict(session.execute(select(Model.id, Model.name)).all())

    def named(key: int) -> str:
        return REFERENCE_NAME if key == REFERENCE_KEY else str(names.get(key, key))

    choices = session.scalar(select(func.count()).where(PairChoice.campaign_id == campaign.id)) or 0
    result: dict[str, Any] = {
        "pairing": pair_choice(campaign.settings, campaign.name),
        "rule": settings_of(campaign).adaptive_rule,
        "choices_logged": choices,
        "coverage": 0.95,
        "unit": "Elo points",
        "pairs": [],
        "unresolved": 0,
    }
    if not candidates.pairs:
        return result
    state = build_state(candidates, counted_votes(session, campaign).values())
    rule = choice_rule(session, campaign)
    weights = rule.weights(state)
    rows: list[dict[str, Any]] = []
    for number, (first, second) in enumerate(candidates.pairs):
        difference = float(weights.difference[number]) * ELO_PER_LOG_ODDS
        margin = Z_95 * float(weights.difference_sd[number]) * ELO_PER_LOG_ODDS
        low, high = difference - margin, difference + margin
        rows.append(
            {
                "first": named(candidates.contestants[first]),
                "second": named(candidates.contestants[second]),
                "battles": int(state.totals[number]),
                "difference": round(difference, 1),
                "low": round(low, 1),
                "high": round(high, 1),
                "width": round(high - low, 1),
                "resolved": bool(low > 0 or high < 0),
                "next_probability": round(float(weights.probabilities[number]), 4),
            }
        )
    rows.sort(key=lambda row: (row["resolved"], -row["width"]))
    result["pairs"] = rows
    result["unresolved"] = sum(not row["resolved"] for row in rows)
    return result
