"""How a campaign chooses the next task's model pair: ``uniform`` (the schedule's order, every
pair as often as the schedule has it) or ``adaptive`` (from the votes so far, by the rule of
``services.adaptive_pairing``). A campaign setting, checked when a campaign is created or
switched."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.domain.protocols import Display
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaign_settings import (
    ADAPTIVE,
    PAIR_CHOICES,
    UNIFORM,
    CampaignSettings,
)

__all__ = ["ADAPTIVE", "PAIR_CHOICES", "UNIFORM", "check_pair_choice", "pair_choice"]


def pair_choice(settings: Mapping[str, Any] | None, campaign: str) -> str:
    """How campaign ``campaign`` (its stored ``settings``) chooses its next pair: ``uniform``
    (the schedule's order) or ``adaptive``."""
    return CampaignSettings.from_json(dict(settings or {}), campaign).pair_choice


def check_pair_choice(choice: str, display: Display) -> None:
    """Refuse a pair choice that is not one, or adaptive pairing for a protocol that does not
    compare two outputs."""
    if choice not in PAIR_CHOICES:
        raise CampaignError(f"--pairing: '{choice}' is not one of {', '.join(PAIR_CHOICES)}")
    if choice == ADAPTIVE and display is not Display.PAIR:
        raise CampaignError(
            "--pairing adaptive chooses model pairs: it needs a protocol that compares two outputs"
        )
