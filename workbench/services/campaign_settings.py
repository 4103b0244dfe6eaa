"""A campaign's settings: one typed model with every setting and its default, stored as the
campaign's JSON column (``campaigns.settings``) and checked when it is read.

Every reader (voting, adjudication, packs, practice, the monitor, campaigns, the judge's work
list, the New campaign dialog's option table) asks :func:`settings_of` for the model instead of
reading the JSON by string keys with its default typed again at each site. A stored value of
the wrong type is refused with :class:`CampaignSettingsError`, naming the campaign and the
setting. Keys the model does not know (settings of a newer app) are kept: writers change the
JSON through :func:`changed_settings`, which replaces only the settings they name."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from workbench.domain.judgments import STANDARD_CONTEXT
from workbench.domain.typed_json import SettingError, plain_value, read_model, write_model
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.storage.models import Campaign

#: the criterion a campaign whose protocol names none is read on
DEFAULT_CRITERION = "overall"
#: how long a task shown in the app stays reserved for its annotator (``--lease-minutes``)
DEFAULT_LEASE_MINUTES = 30.0
#: how long a packed task stays reserved for the pack's annotator (``--pack-lease-days``)
DEFAULT_PACK_LEASE_DAYS = 14.0


#: how a campaign chooses its next task's pair (``services.pair_choice``)
UNIFORM = "uniform"
ADAPTIVE = "adaptive"
PAIR_CHOICES = (UNIFORM, ADAPTIVE)
#: the rules an adaptive campaign may choose by (``workbench.stats.active_sampling``): the
#: published one, which a campaign whose settings name no rule uses, and the plug-in design,
#: which campaigns made adaptive now store
PUBLISHED_PAIR_RULE = "edge-weighted"
DESIGN_PAIR_RULE = "adjacent-design"
PAIR_RULES = (PUBLISHED_PAIR_RULE, DESIGN_PAIR_RULE)


class CampaignSettingsError(WorkbenchError):
    """A campaign's stored settings do not fit the model (a hand-edited or damaged bundle)."""


@dataclass(frozen=True)
class PracticeTask:
    """One task of the practice round, by natural keys (a copy of the bundle renumbers rows but
    not the JSON): the item, the turn, the contestants shown left and right (model names, the
    reference, or a pack's anonymous names), the known answer and what is said after it."""

    source: str
    item: str
    answer: str
    turn: int | None = None
    left: str | None = None
    right: str | None = None
    explanation: str = ""


@dataclass(frozen=True)
class CampaignSettings:
    """Every setting of a campaign, with its default (what a campaign that never stored it
    means). Written once by ``campaign create`` (and for a pack's campaign by the pack), then
    changed only by the settings' own writers (guidelines, assignment, practice done)."""

    #: the campaign's identity across copies (packs find their campaign by it)
    uid: str | None = None
    #: the protocol's display: "pair", "single" or "none"
    display: str = "pair"
    #: the protocol's criteria, the first of which attention checks are scored on
    criteria: tuple[str, ...] = (DEFAULT_CRITERION,)
    #: the item selection as given (``all``, a source, ids)
    items: str = "all"
    #: the contestants scheduled (model names, ``reference``)
    contestants: tuple[str, ...] = ()
    #: how comparisons were drawn (``workbench.services.scheduling.Pairing``)
    pairing: str = "all"
    anchor: str | None = None
    pairs_per_model_pair: int | None = None
    #: which outputs are shown (a conversation context such as an ablation)
    output_context: str = STANDARD_CONTEXT
    #: task and pack leases (None: :data:`DEFAULT_LEASE_MINUTES`, :data:`DEFAULT_PACK_LEASE_DAYS`)
    lease_minutes: float | None = None
    pack_lease_days: float | None = None
    schedule_sha256: str | None = None
    #: whether flagged answers and items were left out, and how many places that took
    exclude_flagged: bool = False
    left_out_flagged: int = 0
    #: model pairs (or models) short of their target, with how short
    shortfalls: dict[str, int] = field(default_factory=dict)
    #: the annotators' guidelines (markdown)
    guidelines: str | None = None
    #: the handles of the annotators the campaign is assigned to (empty: every annotator)
    annotators: tuple[str, ...] = ()
    #: the practice round, whether it may be skipped, and who did (or skipped) it
    practice: tuple[PracticeTask, ...] = ()
    practice_optional: bool = True
    practice_done: dict[str, str] = field(default_factory=dict)
    #: the main bundle's secret behind a pack's anonymous model names
    pack_salt: str | None = None
    created_by: str | None = None
    #: how the next task's pair is chosen: "uniform" (the schedule's order) or "adaptive"
    #: (from the votes so far, ``services.adaptive_pairing``)
    pair_choice: str = UNIFORM
    #: the adaptive rule by name (None: :data:`PUBLISHED_PAIR_RULE`, so a campaign stored before
    #: rules had names replays as it was chosen)
    pair_rule: str | None = None
    #: a pack's campaign: True, with the sequences of the tasks shown swapped
    pack: bool = False
    shown_swapped: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("lease_minutes", "pack_lease_days", "pairs_per_model_pair"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise SettingError(f"setting '{name}' must be positive, not {value!r}")
        if self.pair_choice not in PAIR_CHOICES:
            raise SettingError(
                f"setting 'pair_choice' must be {' or '.join(PAIR_CHOICES)}, "
                f"not {self.pair_choice!r}"
            )
        if self.pair_rule is not None and self.pair_rule not in PAIR_RULES:
            raise SettingError(
                f"setting 'pair_rule' must be {' or '.join(PAIR_RULES)}, not {self.pair_rule!r}"
            )

    @property
    def adaptive_rule(self) -> str:
        """The adaptive rule the campaign chooses by."""
        return self.pair_rule or PUBLISHED_PAIR_RULE

    @property
    def criterion(self) -> str:
        """The first criterion (attention checks are scored on it)."""
        return self.criteria[0] if self.criteria else DEFAULT_CRITERION

    @property
    def lease(self) -> timedelta:
        """How long a handed-out task stays reserved for its annotator."""
        return timedelta(minutes=self.lease_minutes or DEFAULT_LEASE_MINUTES)

    @property
    def pack_lease(self) -> timedelta:
        """How long a pack's tasks stay reserved for its annotator."""
        return timedelta(days=self.pack_lease_days or DEFAULT_PACK_LEASE_DAYS)

    @property
    def assigned(self) -> tuple[str, ...] | None:
        """The handles the campaign is assigned to, None when every annotator may work."""
        return self.annotators or None

    def to_json(self) -> dict[str, Any]:
        """The JSON the campaign stores (settings at their default included, so the stored
        file says every setting)."""
        return write_model(self)

    @classmethod
    def from_json(cls, data: Any, campaign: str) -> CampaignSettings:
        """The settings stored as ``data``, checked; :class:`CampaignSettingsError` names the
        campaign and the setting that does not fit."""
        where = f"campaign '{campaign}'"
        if not isinstance(data, dict):
            raise CampaignSettingsError(f"{where}: its settings are not a JSON object")
        try:
            return read_model(cls, data, where)
        except SettingError as error:
            raise CampaignSettingsError(str(error)) from None


def settings_of(campaign: Campaign) -> CampaignSettings:
    """The campaign's settings, read from its JSON column and checked."""
    return CampaignSettings.from_json(campaign.settings or {}, campaign.name)


def changed_settings(campaign: Campaign, **changes: Any) -> dict[str, Any]:
    """The campaign's stored JSON with the named settings replaced (None removes one): what to
    assign to ``campaign.settings``, a new dict so the JSON column sees the change. The result
    is checked, so a writer cannot store what a reader would refuse."""
    known = CampaignSettings.__dataclass_fields__
    unknown = sorted(set(changes) - set(known))
    if unknown:
        raise ValueError(f"unknown campaign settings: {', '.join(unknown)}")
    updated = {key: value for key, value in (campaign.settings or {}).items()}
    for name, value in changes.items():
        if value is None:
            updated.pop(name, None)
        else:
            updated[name] = plain_value(value)
    CampaignSettings.from_json(updated, campaign.name)
    return updated
