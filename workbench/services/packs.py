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
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from workbench.services.campaign_errors import PackError
from workbench.services.campaigns import find_annotator, find_campaign
from workbench.services.voting import lease_pairs, lease_setting, open_pairs, release_leases
from workbench.storage.batching import chunked
from workbench.storage.bundle import Bundle, remove_bundle_files
from workbench.storage.copier import PACK_POLICY, VOTE_CONTENT, content_key, portable
from workbench.storage.counters import counting, rebuild_counters
from workbench.storage.models import (
    Annotator,
    BundleInfo,
    Campaign,
    Caption,
    Image,
    Item,
    ItemImage,
    Model,
    Output,
    Reference,
    ScheduledPair,
    Source,
    Turn,
    Vote,
)

log = logging.getLogger(__name__)

PACK_INFO_KEY = "pack"
PACK_FORMAT = "vlm-workbench/pack"
PACK_FORMAT_VERSION = 1
#: how long a pack's tasks stay reserved for its annotator unless the campaign's
#: ``pack_lease_days`` setting says otherwise; a pack merged back releases them at once
DEFAULT_PACK_LEASE = timedelta(days=14)
PACK_LEASE_SETTING = "pack_lease_days"

#: the vote fields a merge compares and copies (ids are mapped to the target bundle's)
_VOTE_FIELDS = VOTE_CONTENT
#: how a vote the pack and the bundle both hold is settled
_VOTE_RULE = PACK_POLICY.rule("votes")


@dataclass(frozen=True)
class PackInfo:
    """What a pack says about itself (stored in its ``bundle_info``)."""

    campaign: str
    campaign_uid: str
    annotator: str
    tasks: int
    source_bundle_id: str
    exported_at: str

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

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": str(self.pack),
            "campaign": self.campaign,
            "added": self.added,
            "unchanged": self.unchanged,
            "retractions": self.retractions,
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
    )


# --- export ------------------------------------------------------------------------------------


@dataclass
class _Slice:
    campaign: Campaign
    annotator: Annotator
    pairs: list[ScheduledPair]
    salt: str


def _read_slice(session: Session, campaign_name: str, handle: str, limit: int | None) -> _Slice:
    campaign = find_campaign(session, campaign_name)
    annotator = find_annotator(session, handle)
    statement = open_pairs(campaign.id, annotator.id)
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
    return _Slice(campaign, annotator, pairs, str(campaign.settings["pack_salt"]))


def pack_lease_duration(settings: dict[str, Any]) -> timedelta:
    """How long a pack's tasks stay reserved for its annotator in a campaign."""
    return lease_setting(settings, PACK_LEASE_SETTING, timedelta(days=1), DEFAULT_PACK_LEASE)


def _lease_for_pack(session: Session, piece: _Slice) -> None:
    """Reserve the packed tasks for the pack's annotator, so another pack or the app does not
    hand out a task's last vote a second time while this one is away."""
    lease_pairs(
        session,
        [pair.id for pair in piece.pairs],
        piece.annotator.id,
        pack_lease_duration(piece.campaign.settings),
    )


def _copy_content(
    source: Session, target: Session, piece: _Slice
) -> tuple[dict[int, int], dict[int, int]]:
    """Copy the slice's items (turns, references, captions, images) and the outputs its tasks
    show; return the model and item id maps. Only what the annotation needs crosses over."""
    item_ids = sorted({pair.item_id for pair in piece.pairs})
    models_of_item: dict[int, set[int]] = defaultdict(set)
    for pair in piece.pairs:
        models_of_item[pair.item_id].update(
            model_id for model_id in (pair.left_model_id, pair.right_model_id) if model_id
        )
    model_rows = source.execute(
        select(Model.id, Model.name).where(
            Model.id.in_({m for models in models_of_item.values() for m in models})
        )
    ).all()
    model_map: dict[int, int] = {}
    for model_id, name in sorted(model_rows, key=lambda row: row.name):
        anonymous = Model(name=anonymous_model_name(piece.salt, name), metadata_={})
        target.add(anonymous)
        target.flush()
        model_map[model_id] = anonymous.id

    sources: dict[int, Source] = {}
    images: dict[int, Image] = {}
    item_map: dict[int, int] = {}
    context = str(piece.campaign.settings.get("output_context", "standard"))
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
            outputs = source.execute(
                select(Output.model_id, Output.text).where(
                    Output.turn_id == turn.id,
                    Output.context == context,
                    Output.model_id.in_(models_of_item[item.id]),
                )
            ).all()
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
            campaign_uid=str(piece.campaign.settings["uid"]),
            annotator=piece.annotator.handle,
            tasks=len(piece.pairs),
            source_bundle_id=bundle_id or "",
            exported_at=datetime.now(UTC).isoformat(),
        )
        try:
            with Bundle.create(out) as pack, pack.session() as target:
                model_map, item_map = _copy_content(session, target, piece)
                target.add(BundleInfo(key=PACK_INFO_KEY, value=json.dumps(info.as_dict())))
                target.add(
                    Annotator(
                        handle=piece.annotator.handle,
                        display_name=piece.annotator.display_name,
                        expertise=piece.annotator.expertise,
                    )
                )
                settings = piece.campaign.settings
                pack_campaign = Campaign(
                    name=piece.campaign.name,
                    protocol=piece.campaign.protocol,
                    seed=piece.campaign.seed,
                    votes_per_pair=piece.campaign.votes_per_pair,
                    status=piece.campaign.status,
                    settings={
                        "uid": settings["uid"],
                        "display": settings.get("display"),
                        "criteria": settings.get("criteria"),
                        "output_context": settings.get("output_context", "standard"),
                        "pack": True,
                    },
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
class _PackVote:
    uuid: str
    sequence: int
    handle: str
    values: dict[str, Any]
    retracted_at: datetime | None


def _read_pack(pack: Bundle) -> tuple[PackInfo, list[dict[str, Any]], list[_PackVote], dict]:
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
        pairs: dict[int, dict[str, Any]] = {
            pair.id: {
                "sequence": pair.sequence,
                "item": items[pair.item_id],
                "turn": pair.turn_index,
                "left": models.get(pair.left_model_id or 0),
                "right": models.get(pair.right_model_id or 0),
            }
            for pair in session.scalars(
                select(ScheduledPair).where(ScheduledPair.campaign_id == campaign.id)
            )
        }
        annotators = {annotator.id: annotator for annotator in session.scalars(select(Annotator))}
        votes = [
            _PackVote(
                uuid=vote.uuid,
                sequence=pairs[vote.pair_id]["sequence"],
                handle=annotators[vote.annotator_id].handle,
                values={name: getattr(vote, name) for name in _VOTE_FIELDS},
                retracted_at=vote.retracted_at,
            )
            for vote in session.scalars(
                select(Vote).where(Vote.campaign_id == campaign.id).order_by(Vote.uuid)
            )
            if vote.pair_id in pairs
        ]
        people = {a.handle: (a.display_name, a.expertise) for a in annotators.values()}
    return info, list(pairs.values()), votes, people


def _campaign_by_uid(session: Session, uid: str, name: str) -> Campaign:
    for campaign in session.scalars(select(Campaign)):
        if campaign.settings.get("uid") == uid:
            return campaign
    raise PackError(
        f"this pack belongs to campaign '{name}' (id {uid}), which is not in this bundle; merge "
        "it into the bundle it was exported from (or a copy of it)"
    )


def _check_schedule(
    session: Session, campaign: Campaign, pack_pairs: list[dict[str, Any]]
) -> dict[int, ScheduledPair]:
    salt = str(campaign.settings["pack_salt"])
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
    pairs = {
        pair.sequence: pair
        for pair in session.scalars(
            select(ScheduledPair).where(ScheduledPair.campaign_id == campaign.id)
        )
    }
    for pack_pair in pack_pairs:
        pair = pairs.get(pack_pair["sequence"])
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
    return pairs


def merge_pack(bundle: Bundle, pack_path: str | Path) -> MergeReport:
    """Add a pack's votes to ``bundle`` in one transaction; merging again changes nothing."""
    pack_path = Path(pack_path)
    with Bundle.open(pack_path) as pack:
        info, pack_pairs, pack_votes, people = _read_pack(pack)
    report = MergeReport(pack_path, info.campaign, annotator=info.annotator)
    # A pack is one annotator's work: votes a hand edit attributed to anyone else are refused.
    for vote in pack_votes:
        if vote.handle != info.annotator:
            report.refused[vote.handle] = report.refused.get(vote.handle, 0) + 1
    pack_votes = [vote for vote in pack_votes if vote.handle == info.annotator]
    with bundle.session() as session:
        campaign = _campaign_by_uid(session, info.campaign_uid, info.campaign)
        pairs = _check_schedule(session, campaign, pack_pairs)
        handles = {a.handle: a for a in session.scalars(select(Annotator))}
        for handle in sorted({vote.handle for vote in pack_votes} - set(handles)):
            display_name, expertise = people[handle]
            handles[handle] = Annotator(
                handle=handle, display_name=display_name, expertise=expertise
            )
            session.add(handles[handle])
            report.annotators_added.append(handle)
        session.flush()
        existing: dict[str, Vote] = {}
        for chunk in chunked([vote.uuid for vote in pack_votes]):
            existing.update(
                (vote.uuid, vote)
                for vote in session.scalars(select(Vote).where(Vote.uuid.in_(chunk)))
            )
        touched: set[tuple[int, int]] = set()
        # every task of the pack: votes added, retractions reconciled, leases released
        with counting(session, [pair.id for pair in pairs.values()]):
            for pack_vote in pack_votes:
                pair = pairs[pack_vote.sequence]
                annotator = handles[pack_vote.handle]
                touched.add((pair.id, annotator.id))
                stored = existing.get(pack_vote.uuid)
                if stored is None:
                    session.add(
                        Vote(
                            uuid=pack_vote.uuid,
                            campaign_id=campaign.id,
                            pair_id=pair.id,
                            annotator_id=annotator.id,
                            item_id=pair.item_id,
                            turn_index=pair.turn_index,
                            model_a_id=pair.left_model_id,
                            model_b_id=pair.right_model_id,
                            retracted_at=pack_vote.retracted_at,
                            **pack_vote.values,
                        )
                    )
                    report.added += 1
                    continue
                _reconcile(stored, pack_vote, report, pair.sequence)
            session.flush()
            _release_pack_leases(session, touched)
        report.conflicts.extend(_answered_twice(session, campaign, touched, pairs))
    log.info(
        "merged pack %s: %d added, %d unchanged, %d conflicts, %d refused",
        pack_path,
        report.added,
        report.unchanged,
        len(report.conflicts),
        sum(report.refused.values()),
    )
    return report


def _release_pack_leases(session: Session, answered: set[tuple[int, int]]) -> None:
    """The leases a pack's tasks held end once their answers are in."""
    for pair_id, annotator_id in answered:
        release_leases(session, [pair_id], annotator_id)


def _reconcile(stored: Vote, pack_vote: _PackVote, report: MergeReport, sequence: int) -> None:
    """Bring a vote both sides hold to the same state whichever side is merged first (the
    copier's vote policy: smaller content wins, the earliest retraction wins)."""
    ours = {name: getattr(stored, name) for name in _VOTE_RULE.mutable}
    theirs = {**pack_vote.values, "retracted_at": pack_vote.retracted_at}
    if content_key(ours, _VOTE_FIELDS) != content_key(theirs, _VOTE_FIELDS):
        report.conflicts.append(
            MergeConflict(
                "changed_vote",
                sequence,
                pack_vote.handle,
                [pack_vote.uuid],
                "the same vote has different contents here and in the pack; the version that "
                "sorts first was kept",
            )
        )
    updates = _VOTE_RULE.resolve(ours, theirs)
    for name, value in updates.items():
        setattr(stored, name, portable(value))
    if "retracted_at" in updates:
        report.retractions += 1
    if not updates:
        report.unchanged += 1


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
