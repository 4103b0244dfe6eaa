"""Start annotating: pick a campaign and your annotator profile (or add one). Resuming the
last session opens this too, with that session's campaign and profile chosen: on a shared
computer the next person must not vote under the previous one's handle.

In an offline pack both are fixed by the pack. Only campaign names, protocols and task counts are
listed: nothing here reads which models a campaign compares.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QWidget

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_start_dialog import Ui_StartAnnotatingDialog
from workbench.services.campaigns import add_annotator, list_annotators, list_campaigns
from workbench.services.packs import pack_info
from workbench.storage.bundle import Bundle

NEW_PROFILE = "New profile…"


class StartAnnotatingDialog(QDialog, Ui_StartAnnotatingDialog):
    """Choose ``campaign`` and ``annotator``; a new profile is created when accepted."""

    def __init__(
        self,
        bundle: Bundle,
        parent: QWidget | None = None,
        campaign: str | None = None,
        annotator: str | None = None,
    ) -> None:
        """``campaign`` and ``annotator`` (the last session's) are chosen at first: a default
        to confirm or change, never a session started without asking who is at the keyboard."""
        super().__init__(parent)
        self.setupUi(self)  # ui/start_dialog.ui
        self.bundle = bundle

        pack = pack_info(bundle)
        campaigns = list_campaigns(bundle)
        for listed in campaigns:
            self.campaign_box.addItem(
                f"{listed['name']}  ({listed['protocol']}, {listed['tasks']} tasks)",
                listed["name"],
            )
        for profile in list_annotators(bundle):
            label = profile.handle
            if profile.display_name:
                label += f"  ({profile.display_name})"
            self.annotator_box.addItem(label, profile.handle)
        if pack is None:
            self.annotator_box.addItem(NEW_PROFILE, None)
        else:
            # a pack is one annotator's slice of one campaign
            self.campaign_box.setCurrentIndex(self.campaign_box.findData(pack.campaign))
            self.annotator_box.setCurrentIndex(self.annotator_box.findData(pack.annotator))
            self.campaign_box.setEnabled(False)
            self.annotator_box.setEnabled(False)

        if pack is None and campaign is not None and self.campaign_box.findData(campaign) >= 0:
            self.campaign_box.setCurrentIndex(self.campaign_box.findData(campaign))
        if pack is None and annotator is not None and self.annotator_box.findData(annotator) >= 0:
            self.annotator_box.setCurrentIndex(self.annotator_box.findData(annotator))
        self._profile_rows = (self.handle_field, self.name_field, self.expertise_field)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        if not campaigns:
            self.message.setText("This bundle has no campaign yet: Annotate > New campaign.")
        elif annotator is not None:
            self.message.setText(
                f"The last session was {annotator}'s. Who is at the keyboard? "
                "Pick your own profile before you start."
            )
            self.annotator_box.setFocus()
        self.annotator_box.currentIndexChanged.connect(self._profile_changed)
        self._profile_changed()
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(campaigns))
        self.resize(520, 260)

    @property
    def campaign(self) -> str | None:
        result: str | None = self.campaign_box.currentData()
        return result

    @property
    def annotator(self) -> str | None:
        return self.annotator_box.currentData() or self.handle_field.text().strip() or None

    def _profile_changed(self) -> None:
        new = self.annotator_box.currentData() is None
        for field in self._profile_rows:
            self.form.setRowVisible(field, new)

    def accept(self) -> None:
        if self.campaign is None:
            return
        if self.annotator_box.currentData() is None:
            try:
                add_annotator(
                    self.bundle,
                    self.handle_field.text(),
                    self.name_field.text().strip() or None,
                    self.expertise_field.text().strip() or None,
                )
            except WorkbenchError as error:
                self.message.setText(str(error))
                return
        super().accept()
