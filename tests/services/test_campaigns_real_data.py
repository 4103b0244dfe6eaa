"""A verification campaign over the published VisIT-Bench instances: annotators see the images,
the instruction, the instruction-conditioned captions and the GPT-4 candidate reference that
VisIT-Bench's own annotators verified (expected values read from the raw CSV)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.backends import BundleBackend, Location
from tests.services.campaign_helpers import registry_with_all_protocols
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

pytestmark = pytest.mark.shared_data

MULTI_IMAGE_CSV = "visit_bench_multi_images.csv"


@pytest.fixture(scope="module")
def visit_bundle(shared_data: Path, bundle_backend: BundleBackend) -> Location:
    bundle = bundle_backend.new_location()
    import_files(bundle, [shared_data / "visit-bench"], "visit-bench")
    return bundle


def test_verification_shows_the_candidate_reference_and_the_captions(
    visit_bundle: Location, shared_data: Path
) -> None:
    rows = pd.read_csv(shared_data / "visit-bench" / MULTI_IMAGE_CSV)
    # the published caption lists are padded with NaN past the last image
    expected = {
        (
            row.instruction,
            row.gpt4_prediction,
            tuple(c for c in json.loads(row.images_dense_captions) if isinstance(c, str)),
        )
        for row in rows.itertuples()
    }
    image_counts = {
        (row.instruction, row.gpt4_prediction): len(json.loads(row.images))
        for row in rows.itertuples()
    }
    plugins = registry_with_all_protocols()
    with Bundle.open(visit_bundle) as bundle:
        add_annotator(bundle, "checker")
        spec = CampaignSpec("verify", "visit-bench-verification", seed=1, items=ItemSpec())
        summary = create_campaign(bundle, spec, plugins)
        assert summary.tasks >= len(rows)
        session = AnnotationSession(bundle, "verify", "checker", plugins)
        checked = 0
        while (task := session.next_task()) is not None and checked < 25:
            (turn,) = task.turns
            captions = tuple(caption.text for caption in task.captions)
            if (turn.prompt, turn.reference) in image_counts:  # a multi-image instance
                assert (turn.prompt, turn.reference, captions) in expected
                assert len(task.images) == image_counts[(turn.prompt, turn.reference)]
                assert turn.responses == ()
                checked += 1
            session.cast(task.token, "correct")
    assert checked == 25
