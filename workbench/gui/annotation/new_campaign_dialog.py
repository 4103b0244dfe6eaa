"""Annotate > New campaign: the person running a study picks the protocol, items, models and how
pairs are drawn; the seeded schedule is created in the bundle.

This dialog names models (it is for the campaign's owner, not for annotators) and is never part
of the annotation view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QListWidgetItem, QWidget

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_new_campaign_dialog import Ui_NewCampaignDialog
from workbench.gui.jobs import Job, JobControl, JobStatus, jobs_for
from workbench.plugins import Registry, registry
from workbench.services.campaign_items import REFERENCE_NAME, ItemSpec
from workbench.services.campaigns import (
    CampaignSpec,
    CampaignSummary,
    PracticeSpec,
    create_campaign,
    read_practice_tasks,
)
from workbench.services.scheduling import Pairing
from workbench.storage.bundle import Bundle

NATURAL_PAIRING = "the protocol's default"
#: what the jobs list says at each step of create_campaign (its CREATE_STEPS)
CREATION_STEPS = {
    "items": "Reading the items…",
    "eligibility": "Finding what each item can show…",
    "schedule": "Drawing the schedule…",
    "storing": "Storing the tasks…",
    "counters": "Setting up the progress counters…",
}


class NewCampaignDialog(QDialog, Ui_NewCampaignDialog):
    """A form over ``CampaignSpec``; Create stores the campaign (a job of the window's job
    manager) or shows why it cannot."""

    #: the creation, once Create was pressed
    job: Job | None = None

    def __init__(
        self,
        bundle: Bundle,
        sources: Sequence[str],
        models: Sequence[str],
        plugins: Registry | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setupUi(self)  # ui/new_campaign_dialog.ui
        self.bundle = bundle
        self.plugins = plugins or registry()
        self.summary: CampaignSummary | None = None

        for protocol in self.plugins.protocols():
            self.protocol_box.addItem(f"{protocol.title} ({protocol.name})", protocol.name)
        self.items_box.addItems(["all", *sources])
        for name in [*models, REFERENCE_NAME]:
            entry = QListWidgetItem(name, self.model_list)
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(
                Qt.CheckState.Unchecked if name == REFERENCE_NAME else Qt.CheckState.Checked
            )
        self.pairing_box.addItem(NATURAL_PAIRING, None)
        for pairing in Pairing:
            self.pairing_box.addItem(pairing.value, pairing)
        self.anchor_box.addItem("", None)
        for name in [REFERENCE_NAME, *models]:
            self.anchor_box.addItem(name, name)
        self.seed_spin.setValue(random.randrange(2**31 - 1))
        # the form leaves out items with missing images by default: an annotator cannot judge
        # an unseen image; the practice round's file format is in docs/annotation.md
        self.practice_browse_button.clicked.connect(self._browse_practice_file)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.pairing_box.currentIndexChanged.connect(self._pairing_changed)
        self._pairing_changed()
        self.resize(560, 560)

    def _pairing_changed(self) -> None:
        pairing = self.pairing_box.currentData()
        self.form.setRowVisible(self.anchor_box, pairing is Pairing.ANCHOR)
        self.form.setRowVisible(self.per_pair_spin, pairing is Pairing.BALANCED)

    def _browse_practice_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Practice tasks", "", "Practice tasks (*.jsonl);;All files (*)"
        )
        if path:
            self.practice_file_field.setText(path)

    def chosen_models(self) -> list[str]:
        return [
            self.model_list.item(row).text()
            for row in range(self.model_list.count())
            if self.model_list.item(row).checkState() == Qt.CheckState.Checked
        ]

    def spec(self) -> CampaignSpec:
        pairing = self.pairing_box.currentData()
        return CampaignSpec(
            name=self.name_field.text().strip(),
            protocol=self.protocol_box.currentData(),
            items=ItemSpec(self.items_box.currentText().strip() or "all"),
            models=self.chosen_models() or None,
            votes_per_pair=self.votes_spin.value(),
            seed=self.seed_spin.value(),
            pairing=pairing,
            anchor=self.anchor_box.currentData() if pairing is Pairing.ANCHOR else None,
            pairs_per_model_pair=(
                self.per_pair_spin.value() if pairing is Pairing.BALANCED else None
            ),
            without_missing_images=self.without_missing_box.isChecked(),
            practice=self._practice_tasks(),
            practice_count=self.practice_spin.value() or None,
            practice_optional=self.practice_optional_box.isChecked(),
        )

    def _practice_tasks(self) -> list[PracticeSpec]:
        """The practice file's tasks (none without a file); may raise a WorkbenchError."""
        text = self.practice_file_field.text().strip()
        return read_practice_tasks(Path(text)) if text else []

    def accept(self) -> None:
        if self.creating:
            return
        try:
            spec = self.spec()
        except WorkbenchError as error:
            self.message.setText(str(error))
            return
        if not spec.name:
            self.message.setText("Give the campaign a name.")
            return
        bundle, plugins = self.bundle, self.plugins

        def work(control: JobControl) -> CampaignSummary:
            # one transaction: cancelled at a step, it is rolled back and nothing is stored
            return create_campaign(
                bundle,
                spec,
                plugins,
                progress=control.reporter(CREATION_STEPS),
                cancel_requested=control.cancelled,
            )

        job = jobs_for(self).submit(f"New campaign {spec.name}", "New campaign", work)
        self.job = job
        self.setEnabled(False)
        self.message.setText("Creating the campaign…")
        job.finished.connect(self._job_ended)

    @property
    def creating(self) -> bool:
        return self.job is not None and self.job.active

    def _job_ended(self) -> None:
        job = self.job
        assert job is not None  # set before the job could end
        self.setEnabled(True)
        if job.status is JobStatus.CANCELLED:
            self.message.setText("Cancelled: the campaign was not created.")
            return
        if job.status is not JobStatus.SUCCEEDED:
            self.message.setText(job.error or "The campaign was not created.")
            return
        self.summary = job.result
        self.message.setText("")
        super().accept()
