"""A small bundle with judgments of every shape the kept counts hold, a campaign's votes and a
standing flag, built the same way on either backend (a file or a server database)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from tests.backends import Location
from tests.services.campaign_helpers import registry_with_all_protocols
from tests.storage.test_judgment_counts import vote
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.flags import ANNOTATOR, add_flag
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.models import Item

PLUGINS = registry_with_all_protocols()


def build_counted_bundle(location: Location, source: Path) -> None:
    """Imported judgments of every shape a cell keeps, a campaign's votes and a standing flag
    (so the flagged count reads the judgments), the same on either backend."""
    import_files(location, [source], "jsonl")
    with Bundle.open(location) as bundle:
        for handle in ("ana", "bob"):
            add_annotator(bundle, handle)
        create_campaign(
            bundle, CampaignSpec("pilot", "arena-battle", seed=1, votes_per_pair=2), PLUGINS
        )
        vote(bundle, "pilot", "ana", ["a", "b", "tie", "both_bad"])
        vote(bundle, "pilot", "bob", ["b", "a"])
        with bundle.session() as session:
            item = session.scalars(select(Item.id).order_by(Item.id)).first()
            assert item is not None
            add_flag(
                session,
                item_id=item,
                model_id=None,
                reason="broken_image",
                note="",
                origin=ANNOTATOR,
            )
