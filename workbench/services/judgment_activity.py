"""A cheap fingerprint of a bundle's judgments, which the GUI polls to know when to refresh
its panels. Kept apart from :mod:`workbench.services.analysis` so that polling it, on the GUI
thread when a bundle opens, does not import the statistics stack (pandas)."""

from __future__ import annotations

from workbench.storage.bundle import Bundle
from workbench.storage.judgments import fingerprint


def judgment_activity(bundle: Bundle) -> tuple[int, ...]:
    """A cheap fingerprint of the bundle's judgments (count and largest id per store of the
    judgments the read model shows): it changes when a judgment arrives or is retracted."""
    with bundle.read_session() as session:
        return fingerprint(session)
