"""Offline packs: a campaign's open tasks for one annotator, exported as a self-contained bundle
(items, images, the outputs shown, the schedule slice) to annotate on another machine, and
their votes merged back.

A pack is blind like the annotation view: models are named by a salted hash whose salt stays in
the main bundle, outputs and items carry no metadata, image slots no file names, and attention
checks no answers. Merging matches votes by UUID, so it is idempotent, and resolves every
difference by a rule that does not depend on order (a retraction wins; of two different versions
of one vote, the smaller by content), so merging two packs in either order gives the same votes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from workbench.importers.images import ImageProblemError, check_image_row
from workbench.services.campaign_errors import PackError
from workbench.services.campaign_items import REFERENCE_NAME
from workbench.services.campaign_settings import CampaignSettings, changed_settings, settings_of
from workbench.services.campaigns import (
    campaign_protocol,
    check_assigned,
    find_annotator,
    find_campaign,
)
from workbench.services.pack_marker import PACK_INFO_KEY
from workbench.services.pair_choice import ADAPTIVE, pair_choice
from workbench.services.shown_order import ShownOrders, swapped_sequences
from workbench.services.voting import lease_pairs, open_pairs, release_leases
from workbench.storage.bundle import Bundle, remove_bundle_files
from workbench.storage.copier import PACK_POLICY, VOTE_CONTENT, content_key
from workbench.storage.counters import counting, rebuild_counters
from workbench.storage.models import (
    Annotator,
    BundleInfo,
    Campaign,
    Caption,
    Flag,
    Image,
    Item,
    ItemImage,
    Model,
    Output,
    PairChoice,
    Reference,
    ScheduledPair,
    Source,
    Turn,
    Vote,
)
from workbench.storage.transfer import Observer, TableCounts, TransferError, copy_table

log = logging.getLogger(__name__)

PACK_FORMAT = "vlm-workbench/pack"
PACK_FORMAT_VERSION = 1
#: how long a pack's tasks stay reserved for its annotator unless the campaign's
#: ``pack_lease_days`` setting says otherwise; a pack merged back releases them at once


@dataclass(frozen=True)
class PackInfo:
    """What a pack says about itself (stored in its ``bundle_info``)."""

    campaign: str
    campaign_uid: str
    annotator: str
    tasks: int
    source_bundle_id: str
    exported_at: str
    #: how the campaign chooses pairs; an adaptive campaign's pack carries a batch chosen at
    #: packing time, by the logged choices ``choices`` (first and last ordinal)
    pairing: str = "uniform"
    choices: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": PACK_FORMAT,
            "format_version": PACK_FORMAT_VERSION,
            "campaign": self.campaign,
            "campaign_uid": self.campaign_uid,
            "annotator": self.annotator,
            "tasks": self.tasks,
            "source_bundle_id": self.source_bundle_id,
            "exported_at": self.exported_at,
            "pairing": self.pairing,
            "choices": list(self.choices) if self.choices else None,
        }


@dataclass
class MergeConflict:
    """Something a merge could not simply add: ``kind`` is ``changed_vote`` (one UUID, two
    contents; the smaller by content was kept) or ``answered_twice`` (one annotator has two
    standing answers to one task, e.g. in two packs; both were kept)."""

    kind: str
    task: int | None
    annotator: str
    uuids: list[str]
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "task": self.task,
            "annotator": self.annotator,
            "uuids": self.uuids,
            "detail": self.detail,
        }


@dataclass
class MergeReport:
    pack: Path
    campaign: str
    added: int = 0
    unchanged: int = 0
    retractions: int = 0
    annotators_added: list[str] = field(default_factory=list)
    conflicts: list[MergeConflict] = field(default_factory=list)
    #: vote rows attributed to annotators other than the pack's own, not merged: handle -> rows
    refused: dict[str, int] = field(default_factory=dict)
    #: the pack's annotator, whose votes alone are merged
    annotator: str = ""
    #: flags the annotator raised in the pack, added to the bundle
    flags_added: int = 0
    #: of an adaptive campaign: the ordinals of the logged choices whose tasks the merged
    #: votes answer (the next choice counts the votes in its state)
    adaptive_choices: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": str(self.pack),
            "campaign": self.campaign,
            "added": self.added,
            "unchanged": self.unchanged,
            "retractions": self.retractions,
            "flags_added": self.flags_added,
            "adaptive_choices": self.adaptive_choices,
            "refused": self.refused,
            "annotators_added": self.annotators_added,
            "conflicts": [conflict.as_dict() for conflict in self.conflicts],
        }


def anonymous_model_name(salt: str, name: str) -> str:
    return "model-" + hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()[:16]


def pack_info(bundle: Bundle) -> PackInfo | None:
    """The pack's description when ``bundle`` is an offline pack, else None."""
    raw = bundle.info().get(PACK_INFO_KEY)
    if raw is None:
        return None
    data = json.loads(raw)
    return PackInfo(
        campaign=data["campaign"],
        campaign_uid=data["campaign_uid"],
        annotator=data["annotator"],
        tasks=data["tasks"],
        source_bundle_id=data["source_bundle_id"],
        exported_at=data["exported_at"],
        pairing=data.get("pairing", "uniform"),
        choices=tuple(data["choices"]) if data.get("choices") else None,
    )


def _refuse_a_pack(bundle: Bundle, doing: str) -> None:
    """A pack holds one annotator's tasks under hashed names, without the campaign's secret
    salt: packs are exported from and merged into the main bundle only."""
    if pack_info(bundle) is not None:
        raise PackError(
            f"{bundle.path or 'this bundle'} is itself an offline pack; {doing} the main "
            "bundle the campaign lives in"
        )


# --- export ------------------------------------------------------------------------------------


@dataclass
class _Slice:
    campaign: Campaign
    annotator: Annotator
    pairs: list[ScheduledPair]
    salt: str
    #: per packed task, whether it is shown with its right model first (the pack carries it)
    swapped: dict[int, bool] = field(default_factory=dict)
    #: the ordinals of the adaptive choices that picked the packed tasks (empty: uniform)
    choices: list[int] = field(default_factory=list)


def _read_slice(session: Session, campaign_name: str, handle: str, limit: int | None) -> _Slice:
    campaign = find_campaign(session, campaign_name)
    annotator = find_annotator(session, handle)
    check_assigned(campaign, annotator.handle)
    statement = open_pairs(campaign.id, annotator.id)
    choices: list[int] = []
    if pair_choice(campaign.settings, campaign.name) == ADAPTIVE:
        pair_ids, choices = _adaptive_batch(session, campaign, annotator.id, limit)
    else:
        pair_ids = list(session.scalars(statement))
    pairs = list(
        session.scalars(
            select(ScheduledPair)
            .where(ScheduledPair.id.in_(pair_ids))
            .order_by(ScheduledPair.sequence)
            .limit(limit)
            # a task being handed out in the app right now is left for the next pack
            .with_for_update(skip_locked=True)
        )
    )
    if not pairs:
        raise PackError(
            f"annotator '{handle}' has no open task in campaign '{campaign_name}'; nothing to pack"
        )
    orders = ShownOrders(campaign.id, annotator.id, campaign_protocol(campaign).output_count == 2)
    now = datetime.now(UTC)
    swapped = {
        pair.id: orders.choose(
            session.connection(),
            pair.id,
            pair.sequence,
            pair.left_model_id,
            pair.right_model_id,
            now,
        )
        for pair in pairs
    }
    return _Slice(campaign, annotator, pairs, _salt(campaign), swapped, choices)


def _adaptive_batch(
    session: Session, campaign: Campaign, annotator_id: int, limit: int | None
) -> tuple[list[int], list[int]]:
    """The tasks of an adaptive campaign's pack, chosen now: the attention checks due, then as
    many tasks as the limit leaves (all open ones without a limit), each pair drawn by the rule
    from the votes so far and logged; and the ordinals of those choices."""
    # start-up: the adaptive rule's numpy and scipy, not loaded for uniform campaigns
    from workbench.services.adaptive_pairing import (
        ORIGIN_PACK,
        OpenTask,
        choose_among,
        gold_due,
        lock_campaign,
    )

    lock_campaign(session, campaign.id)
    rows = session.execute(
        open_pairs(campaign.id, annotator_id).add_columns(
            ScheduledPair.sequence,
            ScheduledPair.left_model_id,
            ScheduledPair.right_model_id,
            ScheduledPair.gold_choice,
        )
    ).all()
    checks = [
        row.id
        for row in sorted(rows, key=lambda row: row.sequence)
        if row.gold_choice is not None and gold_due(session, campaign.id, row.sequence)
    ][: limit if limit is not None else None]
    ordinary = [
        OpenTask(row.id, row.sequence, row.left_model_id, row.right_model_id)
        for row in rows
        if row.gold_choice is None
    ]
    wanted = (limit if limit is not None else len(ordinary)) - len(checks)
    last = session.scalar(
        select(func.max(PairChoice.ordinal)).where(PairChoice.campaign_id == campaign.id)
    )
    chosen = choose_among(session, campaign, annotator_id, ordinary, wanted, ORIGIN_PACK)
    first = (last or 0) + 1
    return [*checks, *chosen], list(range(first, first + len(chosen)))


def _salt(campaign: Campaign) -> str:
    """The campaign's secret behind its packs' anonymous model names (a pack has none)."""
    salt = settings_of(campaign).pack_salt
    if salt is None:
        raise PackError(
            f"campaign '{campaign.name}' has no pack salt: it is a pack's copy, or was made by "
            "an app without packs; export packs from the bundle the campaign was created in"
        )
    return salt


def _lease_for_pack(session: Session, piece: _Slice) -> None:
    """Reserve the packed tasks for the pack's annotator, so another pack or the app does not
    hand out a task's last vote a second time while this one is away."""
    lease_pairs(
        session,
        [pair.id for pair in piece.pairs],
        piece.annotator.id,
        settings_of(piece.campaign).pack_lease,
        piece.swapped,
    )


def _practice_shown(session: Session, settings: CampaignSettings) -> dict[int, set[int]]:
    """The items of the campaign's practice round and, per item, the models its practice tasks
    show (the reference answer is no model), so the pack can show the same round."""
    shown: dict[int, set[int]] = defaultdict(set)
    for row in settings.practice:
        item_id = session.scalar(
            select(Item.id)
            .join(Source, Item.source_id == Source.id)
            .where(Source.name == row.source, Item.external_id == row.item)
        )
        names = [name for name in (row.left, row.right) if name not in (None, REFERENCE_NAME)]
        ids = set(session.scalars(select(Model.id).where(Model.name.in_(names))))
        if item_id is None or len(ids) < len(set(names)):
            raise PackError(
                f"practice task on {row.source}/{row.item} names an item or model no "
                "longer in this bundle; the pack could not carry the practice round"
            )
        shown[item_id].update(ids)
    return shown


def _pack_practice(settings: CampaignSettings, salt: str, handle: str) -> dict[str, Any]:
    """The practice settings of the pack's campaign: the same tasks (contestants named as the
    pack names them), the same required flag, and whether this annotator has done it."""
    if not settings.practice:
        return {}

    def shown_as(name: str | None) -> str | None:
        return name if name in (None, REFERENCE_NAME) else anonymous_model_name(salt, str(name))

    done = settings.practice_done
    return {
        "practice": tuple(
            replace(row, left=shown_as(row.left), right=shown_as(row.right))
            for row in settings.practice
        ),
        "practice_optional": settings.practice_optional,
        "practice_done": {handle: done[handle]} if handle in done else {},
    }


def pack_order(salt: str, handle: str, exported_at: str) -> random.Random:
    """The order in which a pack's anonymous models (and each turn's outputs) get their ids:
    random, and fresh for every pack, seeded from the campaign's secret salt (which stays in
    the main bundle) with the annotator and the moment of export. Ids given in the order of
    the real names (as they once were) let anyone sort the ids and read off the names."""
    seed = hashlib.sha256(f"{salt}:pack-order:{handle}:{exported_at}".encode()).digest()
    return random.Random(seed)


def _copy_content(
    source: Session, target: Session, piece: _Slice, order: random.Random
) -> tuple[dict[int, int], dict[int, int]]:
    """Copy the slice's items (turns, references, captions, images) and the outputs its tasks
    and the campaign's practice round show; return the model and item id maps. Only what the
    annotation needs crosses over, and no id follows the order of a model's name or id."""
    models_of_item: dict[int, set[int]] = defaultdict(set)
    for pair in piece.pairs:
        models_of_item[pair.item_id].update(
            model_id for model_id in (pair.left_model_id, pair.right_model_id) if model_id
        )
    for item_id, model_ids in _practice_shown(source, settings_of(piece.campaign)).items():
        models_of_item[item_id].update(model_ids)
    item_ids = sorted(models_of_item)
    model_rows = source.execute(
        select(Model.id, Model.name).where(
            Model.id.in_({m for models in models_of_item.values() for m in models})
        )
    ).all()
    model_map: dict[int, int] = {}
    shuffled = sorted(model_rows, key=lambda row: row.name)  # a fixed start for the seed
    order.shuffle(shuffled)
    for model_id, name in shuffled:
        anonymous = Model(name=anonymous_model_name(piece.salt, name), metadata_={})
        target.add(anonymous)
        target.flush()
        model_map[model_id] = anonymous.id

    sources: dict[int, Source] = {}
    images: dict[int, Image] = {}
    item_map: dict[int, int] = {}
    context = settings_of(piece.campaign).output_context
    for item in source.scalars(select(Item).where(Item.id.in_(item_ids)).order_by(Item.id)):
        if item.source_id not in sources:
            sources[item.source_id] = Source(name=item.source.name)
            target.add(sources[item.source_id])
        copy = Item(
            source=sources[item.source_id],
            external_id=item.external_id,
            family=item.family,
            category=item.category,
            language=item.language,
            metadata_={},
        )
        target.add(copy)
        for slot in item.images:
            image = None
            if slot.image is not None:
                if slot.image_id not in images:
                    original = slot.image
                    try:  # the pack goes to another machine: only what an import stores
                        check_image_row(original.sha256, original.format, original.data)
                    except ImageProblemError as refused:
                        raise PackError(
                            f"item {item.external_id} cannot go into a pack: {refused}"
                        ) from None
                    images[original.id] = Image(
                        sha256=original.sha256,
                        format=original.format,
                        width=original.width,
                        height=original.height,
                        size_bytes=original.size_bytes,
                        data=original.data,
                    )
                image = images[slot.image.id]
            # the original reference is a file name or URL: not something the annotator needs
            reference = f"sha256:{image.sha256}" if image is not None else "missing"
            copy.images.append(
                ItemImage(position=slot.position, image=image, original_ref=reference)
            )
        copy.captions.extend(
            Caption(image_position=c.image_position, kind=c.kind, source="", text=c.text)
            for c in item.captions
        )
        for turn in item.turns:
            turn_copy = Turn(
                index=turn.index,
                prompt=turn.prompt,
                category=turn.category,
                focus_points=turn.focus_points,
            )
            turn_copy.references.extend(
                Reference(kind=r.kind, source="", text=r.text) for r in turn.references
            )
            copy.turns.append(turn_copy)
            target.flush()
            outputs = list(
                source.execute(
                    select(Output.model_id, Output.text)
                    .where(
                        Output.turn_id == turn.id,
                        Output.context == context,
                        Output.model_id.in_(models_of_item[item.id]),
                    )
                    .order_by(Output.model_id)
                )
            )
            # the outputs' ids would otherwise follow the main bundle's model ids
            order.shuffle(outputs)
            target.add_all(
                Output(
                    turn_id=turn_copy.id,
                    model_id=model_map[model_id],
                    context=context,
                    text=text,
                    metadata_={},
                )
                for model_id, text in outputs
            )
        target.flush()
        item_map[item.id] = copy.id
    return model_map, item_map


def export_pack(
    bundle: Bundle, campaign: str, annotator: str, out: str | Path, limit: int | None = None
) -> PackInfo:
    """Write the annotator's open tasks of ``campaign`` (the first ``limit`` of them) to a new
    pack bundle at ``out``. A failed export leaves no file behind."""
    out = Path(out)
    _refuse_a_pack(bundle, "export a pack from")
    if out.exists():
        raise PackError(f"{out} already exists; choose another file name")
    if limit is not None and limit < 1:
        raise PackError("a pack holds at least one task")
    # One write transaction: the tasks chosen and their leases land together, so two packs
    # exported at once cannot both take the last vote a task needs.
    with bundle.session() as session:
        piece = _read_slice(session, campaign, annotator, limit)
        bundle_id = session.scalar(select(BundleInfo.value).where(BundleInfo.key == "bundle_id"))
        info = PackInfo(
            campaign=piece.campaign.name,
            campaign_uid=str(settings_of(piece.campaign).uid),
            annotator=piece.annotator.handle,
            tasks=len(piece.pairs),
            source_bundle_id=bundle_id or "",
            exported_at=datetime.now(UTC).isoformat(),
            pairing=pair_choice(piece.campaign.settings, piece.campaign.name),
            choices=(piece.choices[0], piece.choices[-1]) if piece.choices else None,
        )
        try:
            with Bundle.create(out) as pack, pack.session() as target:
                order = pack_order(piece.salt, piece.annotator.handle, info.exported_at)
                model_map, item_map = _copy_content(session, target, piece, order)
                target.add(BundleInfo(key=PACK_INFO_KEY, value=json.dumps(info.as_dict())))
                target.add(
                    Annotator(
                        handle=piece.annotator.handle,
                        display_name=piece.annotator.display_name,
                        expertise=piece.annotator.expertise,
                    )
                )
                settings = settings_of(piece.campaign)
                # what the pack's annotator needs, and nothing that names a model
                carried = CampaignSettings(
                    uid=settings.uid,
                    display=settings.display,
                    criteria=settings.criteria,
                    output_context=settings.output_context,
                    pairing=settings.pairing,
                    # the annotator reads them before the first task, offline as at the lab
                    guidelines=settings.guidelines,
                    pack=True,
                    shown_swapped=tuple(
                        swapped_sequences(
                            (pair.sequence, piece.swapped[pair.id]) for pair in piece.pairs
                        )
                    ),
                    **_pack_practice(settings, piece.salt, piece.annotator.handle),
                )
                pack_campaign = Campaign(
                    name=piece.campaign.name,
                    protocol=piece.campaign.protocol,
                    seed=piece.campaign.seed,
                    votes_per_pair=piece.campaign.votes_per_pair,
                    status=piece.campaign.status,
                    settings=carried.to_json(),
                )
                target.add(pack_campaign)
                target.flush()
                target.add_all(
                    ScheduledPair(
                        campaign_id=pack_campaign.id,
                        sequence=pair.sequence,
                        item_id=item_map[pair.item_id],
                        turn_index=pair.turn_index,
                        left_model_id=model_map.get(pair.left_model_id or 0),
                        right_model_id=model_map.get(pair.right_model_id or 0),
                        votes_target=1,
                        gold_choice=None,  # the known answer stays home
                    )
                    for pair in piece.pairs
                )
                target.flush()
                rebuild_counters(target, [pack_campaign.id])
            _lease_for_pack(session, piece)
            session.flush()
        except BaseException:
            remove_bundle_files(out)
            raise
    log.info("exported pack %s: %d tasks of campaign %s", out, info.tasks, info.campaign)
    return info


# --- merge -------------------------------------------------------------------------------------


@dataclass
class _PackContent:
    """What a merge matches the bundle against: the pack's campaign, its annotator's id, its
    tasks (with their items and anonymous contestants) and whose votes it holds."""

    info: PackInfo
    campaign_id: int
    annotator_id: int | None
    pairs: list[dict[str, Any]]
    models: dict[int, str]
    items: dict[int, tuple[str, str]]
    #: handle -> votes in the pack attributed to that annotator
    voters: dict[str, int]
    person: tuple[str | None, str | None]
    #: how the pack's annotator left the practice round in the pack (None: not yet)
    practice_done: str | None = None


def _read_pack(pack: Bundle) -> _PackContent:
    info = pack_info(pack)
    if info is None:
        raise PackError(f"{pack.path} is a bundle but not an offline pack")
    with pack.read_session() as session:
        campaign = find_campaign(session, info.campaign)
        models = dict(session.execute(select(Model.id, Model.name)).all())
        items = {
            item_id: (source, external_id)
            for item_id, source, external_id in session.execute(
                select(Item.id, Source.name, Item.external_id).join(Source)
            )
        }
        pairs = [
            {
                "id": pair.id,
                "sequence": pair.sequence,
                "item": items[pair.item_id],
                "turn": pair.turn_index,
                "left": models.get(pair.left_model_id or 0),
                "right": models.get(pair.right_model_id or 0),
            }
            for pair in session.scalars(
                select(ScheduledPair).where(ScheduledPair.campaign_id == campaign.id)
            )
        ]
        voters = dict(
            session.execute(
                select(Annotator.handle, func.count(Vote.id))
                .join(Annotator, Annotator.id == Vote.annotator_id)
                .where(Vote.campaign_id == campaign.id)
                .group_by(Annotator.handle)
            ).all()
        )
        own = session.scalars(select(Annotator).where(Annotator.handle == info.annotator)).first()
        practice_done = settings_of(campaign).practice_done.get(info.annotator)
    return _PackContent(
        info,
        campaign.id,
        None if own is None else own.id,
        pairs,
        models,
        items,
        voters,
        (None, None) if own is None else (own.display_name, own.expertise),
        practice_done,
    )


def _campaign_by_uid(session: Session, uid: str, name: str) -> Campaign:
    for campaign in session.scalars(select(Campaign)):
        if settings_of(campaign).uid == uid:
            return campaign
    raise PackError(
        f"this pack belongs to campaign '{name}' (id {uid}), which is not in this bundle; merge "
        "it into the bundle it was exported from (or a copy of it)"
    )


def _match_schedule(
    session: Session, campaign: Campaign, content: _PackContent
) -> tuple[dict[int, ScheduledPair], dict[str, dict[int, int]]]:
    """Match the pack's tasks to the campaign's schedule (by sequence, item and anonymous
    contestants); return the bundle's pairs by pack pair id and the id maps (pack id -> bundle
    id) of the pairs, items and models the pack's votes name."""
    salt = _salt(campaign)
    anonymous = {
        anonymous_model_name(salt, name): model_id
        for model_id, name in session.execute(select(Model.id, Model.name))
    }
    items = {
        (source, external_id): item_id
        for item_id, source, external_id in session.execute(
            select(Item.id, Source.name, Item.external_id).join(Source)
        )
    }
    by_sequence = {
        pair.sequence: pair
        for pair in session.scalars(
            select(ScheduledPair).where(ScheduledPair.campaign_id == campaign.id)
        )
    }
    matched: dict[int, ScheduledPair] = {}
    for pack_pair in content.pairs:
        pair = by_sequence.get(pack_pair["sequence"])
        matches = pair is not None and (
            items.get(pack_pair["item"]) == pair.item_id
            and pack_pair["turn"] == pair.turn_index
            and anonymous.get(pack_pair["left"]) == pair.left_model_id
            and anonymous.get(pack_pair["right"]) == pair.right_model_id
        )
        if not matches:
            raise PackError(
                f"task #{pack_pair['sequence']} of the pack does not match the campaign's "
                "schedule in this bundle; the pack was not made from this campaign"
            )
        assert pair is not None  # matches is False otherwise
        matched[pack_pair["id"]] = pair
    id_maps = {
        "scheduled_pairs": {pack_id: pair.id for pack_id, pair in matched.items()},
        "items": {pack_id: items[key] for pack_id, key in content.items.items() if key in items},
        "models": {
            pack_id: anonymous[name]
            for pack_id, name in content.models.items()
            if name in anonymous
        },
    }
    return matched, id_maps


def merge_pack(bundle: Bundle, pack_path: str | Path) -> MergeReport:
    """Add a pack's votes to ``bundle`` in one transaction; merging again changes nothing.

    The votes are copied by the copier engine (:func:`workbench.storage.transfer.copy_table`)
    under :data:`~workbench.storage.copier.PACK_POLICY`, the same normaliser and vote rule as
    push/pull, scoped to the pack's annotator; only the matching of the pack's anonymised
    tasks, items and contestants to the bundle's is the pack's own."""
    pack_path = Path(pack_path)
    _refuse_a_pack(bundle, "merge a pack into")
    with Bundle.open(pack_path) as pack:
        content = _read_pack(pack)
        info = content.info
        report = MergeReport(pack_path, info.campaign, annotator=info.annotator)
        # A pack is one annotator's work: votes a hand edit attributed to anyone else are refused.
        report.refused = {
            handle: count for handle, count in content.voters.items() if handle != info.annotator
        }
        with bundle.session() as session, pack.read_session() as source:
            campaign = _campaign_by_uid(session, info.campaign_uid, info.campaign)
            pairs, id_maps = _match_schedule(session, campaign, content)
            annotator = _find_or_add_annotator(session, info, content, report)
            votes = Vote.__table__
            own_votes = and_(
                votes.c.campaign_id == content.campaign_id,
                votes.c.annotator_id == (content.annotator_id or 0),
            )
            answered = {
                pairs[pair_id].id
                for pair_id in source.scalars(select(votes.c.pair_id).where(own_votes))
                if pair_id in pairs
            }
            sequence_of = {pair.id: pair.sequence for pair in pairs.values()}

            def observe(
                row: Mapping[str, Any], ours: Mapping[str, Any], updates: Mapping[str, Any]
            ) -> None:
                if content_key(ours, VOTE_CONTENT) != content_key(row, VOTE_CONTENT):
                    report.conflicts.append(
                        MergeConflict(
                            "changed_vote",
                            sequence_of.get(row["pair_id"]),
                            info.annotator,
                            [row["uuid"]],
                            "the same vote has different contents here and in the pack; the "
                            "version that sorts first was kept",
                        )
                    )
                if "retracted_at" in updates:
                    report.retractions += 1

            session.flush()
            pack_maps: dict[str, Mapping[Any, Any]] = {
                **id_maps,
                "campaigns": {content.campaign_id: campaign.id},
                "annotators": {content.annotator_id: annotator.id},
            }

            def copy_rows(
                table: str, source_where: Any, target_where: Any, observe: Observer | None = None
            ) -> TableCounts:
                try:
                    return copy_table(
                        source.connection(),
                        session.connection(),
                        table,
                        PACK_POLICY,
                        pack_maps,
                        source_where=source_where,
                        target_where=target_where,
                        observe=observe,
                    )
                except TransferError as error:
                    raise PackError(f"{pack_path} cannot be merged: {error}") from error

            # every task of the pack: votes added, retractions reconciled, leases released
            with counting(session, [pair.id for pair in pairs.values()]):
                counts = copy_rows(
                    "votes",
                    source_where=own_votes,
                    target_where=votes.c.campaign_id == campaign.id,
                    observe=observe,
                )
                report.added, report.unchanged = counts.copied, counts.unchanged
                flags = Flag.__table__
                copied_flags = copy_rows(
                    "flags",
                    source_where=and_(
                        flags.c.campaign_id == content.campaign_id,
                        flags.c.annotator_id == (content.annotator_id or 0),
                    ),
                    target_where=flags.c.campaign_id == campaign.id,
                )
                report.flags_added = copied_flags.copied
                touched = {(pair_id, annotator.id) for pair_id in answered}
                _release_pack_leases(session, touched)
            _carry_practice_done(session, campaign, info.annotator, content.practice_done)
            by_sequence = {pair.sequence: pair for pair in pairs.values()}
            report.conflicts.extend(_answered_twice(session, campaign, touched, by_sequence))
            report.adaptive_choices = list(
                session.scalars(
                    select(PairChoice.ordinal)
                    .where(
                        PairChoice.campaign_id == campaign.id,
                        PairChoice.annotator_id == annotator.id,
                        PairChoice.pair_id.in_([pair_id for pair_id, _ in touched]),
                    )
                    .order_by(PairChoice.ordinal)
                )
            )
    log.info(
        "merged pack %s: %d added, %d unchanged, %d conflicts, %d refused",
        pack_path,
        report.added,
        report.unchanged,
        len(report.conflicts),
        sum(report.refused.values()),
    )
    return report


def _find_or_add_annotator(
    session: Session, info: PackInfo, content: _PackContent, report: MergeReport
) -> Annotator:
    """The pack's annotator in the bundle, added (as the pack describes them) when the bundle
    does not know them yet and the pack holds their votes."""
    annotator = session.scalars(select(Annotator).where(Annotator.handle == info.annotator)).first()
    if annotator is not None:
        return annotator
    display_name, expertise = content.person
    annotator = Annotator(handle=info.annotator, display_name=display_name, expertise=expertise)
    if content.voters.get(info.annotator):
        session.add(annotator)
        session.flush()
        report.annotators_added.append(info.annotator)
    return annotator


def _carry_practice_done(
    session: Session, campaign: Campaign, handle: str, done: str | None
) -> None:
    """An annotator who did (or skipped) the practice round in the pack is not offered it
    again in the app; a round already settled in the bundle stays as it is."""
    if done is None or not settings_of(campaign).practice:
        return
    locked = session.scalars(
        select(Campaign).where(Campaign.id == campaign.id).with_for_update()
    ).one()
    settled = dict(settings_of(locked).practice_done)
    if handle not in settled:
        settled[handle] = done
        locked.settings = changed_settings(locked, practice_done=settled)


def _release_pack_leases(session: Session, answered: set[tuple[int, int]]) -> None:
    """The leases a pack's tasks held end once their answers are in."""
    for pair_id, annotator_id in answered:
        release_leases(session, [pair_id], annotator_id)


def _answered_twice(
    session: Session,
    campaign: Campaign,
    touched: set[tuple[int, int]],
    pairs: dict[int, ScheduledPair],
) -> list[MergeConflict]:
    sequence_of = {pair.id: sequence for sequence, pair in pairs.items()}
    handle_of = dict(session.execute(select(Annotator.id, Annotator.handle)).all())
    standing: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for vote in session.scalars(
        select(Vote)
        .where(Vote.campaign_id == campaign.id, Vote.retracted_at.is_(None))
        .order_by(Vote.uuid)
    ):
        if (vote.pair_id, vote.annotator_id) in touched:
            standing[(vote.pair_id or 0, vote.annotator_id, vote.criterion)].append(vote.uuid)
    conflicts = []
    reported: set[tuple[int, int]] = set()
    for (pair_id, annotator_id, _criterion), uuids in sorted(standing.items()):
        if len(uuids) > 1 and (pair_id, annotator_id) not in reported:
            reported.add((pair_id, annotator_id))
            conflicts.append(
                MergeConflict(
                    "answered_twice",
                    sequence_of.get(pair_id),
                    handle_of[annotator_id],
                    uuids,
                    "the annotator has more than one standing answer to this task (all kept; "
                    "retract the ones that should not count)",
                )
            )
    return conflicts
