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
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.errors import WorkbenchError
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


class NewCampaignDialog(QDialog):
    """A form over ``CampaignSpec``; Create stores the campaign or shows why it cannot."""

    def __init__(
        self,
        bundle: Bundle,
        sources: Sequence[str],
        models: Sequence[str],
        plugins: Registry | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("New campaign")
        self.bundle = bundle
        self.plugins = plugins or registry()
        self.summary: CampaignSummary | None = None

        self.name_field = QLineEdit(self)
        self.name_field.setPlaceholderText("annotators see it: name no model in it")
        self.protocol_box = QComboBox(self)
        for protocol in self.plugins.protocols():
            self.protocol_box.addItem(f"{protocol.title} ({protocol.name})", protocol.name)
        self.items_box = QComboBox(self)
        self.items_box.setEditable(True)
        self.items_box.addItems(["all", *sources])
        self.items_box.setToolTip("all, a source name, or comma-separated item ids")
        self.model_list = QListWidget(self)
        for name in [*models, REFERENCE_NAME]:
            entry = QListWidgetItem(name, self.model_list)
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(
                Qt.CheckState.Unchecked if name == REFERENCE_NAME else Qt.CheckState.Checked
            )
        self.model_list.setMaximumHeight(160)
        self.pairing_box = QComboBox(self)
        self.pairing_box.addItem(NATURAL_PAIRING, None)
        for pairing in Pairing:
            self.pairing_box.addItem(pairing.value, pairing)
        self.anchor_box = QComboBox(self)
        self.anchor_box.addItem("", None)
        for name in [REFERENCE_NAME, *models]:
            self.anchor_box.addItem(name, name)
        self.per_pair_spin = QSpinBox(self)
        self.per_pair_spin.setRange(1, 100_000)
        self.per_pair_spin.setValue(20)
        self.votes_spin = QSpinBox(self)
        self.votes_spin.setRange(1, 100)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(random.randrange(2**31 - 1))
        self.without_missing_box = QCheckBox("Leave out items whose images are missing", self)
        self.without_missing_box.setChecked(True)  # an annotator cannot judge an unseen image
        # the practice round: tasks with known answers from a file (see docs/annotation.md)
        self.practice_file_field = QLineEdit(self)
        self.practice_file_field.setPlaceholderText(
            "none: answers marked right and wrong in the data, when a count is given"
        )
        self.practice_file_field.setToolTip(
            "JSONL, one practice task a line: item, answer, first, second, turn, explanation"
        )
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse_practice_file)
        practice_row = QHBoxLayout()
        practice_row.addWidget(self.practice_file_field, 1)
        practice_row.addWidget(browse)
        self.practice_spin = QSpinBox(self)
        self.practice_spin.setRange(0, 1000)
        self.practice_spin.setSpecialValueText("all in the file (none without one)")
        self.practice_spin.setToolTip("how many practice tasks to draw (0: no practice round)")
        self.practice_optional_box = QCheckBox("Annotators may skip the practice round", self)
        self.practice_optional_box.setChecked(True)
        self.message = QLabel(self)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020;")

        form = QFormLayout()
        form.addRow("Name", self.name_field)
        form.addRow("Protocol", self.protocol_box)
        form.addRow("Items", self.items_box)
        form.addRow("Models", self.model_list)
        form.addRow("Pairing", self.pairing_box)
        form.addRow("Anchor", self.anchor_box)
        form.addRow("Pairs per model pair", self.per_pair_spin)
        form.addRow("Votes per pair", self.votes_spin)
        form.addRow("Seed", self.seed_spin)
        form.addRow("", self.without_missing_box)
        form.addRow("Practice file", practice_row)
        form.addRow("Practice tasks", self.practice_spin)
        form.addRow("", self.practice_optional_box)
        self._form = form
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.pairing_box.currentIndexChanged.connect(self._pairing_changed)
        self._pairing_changed()
        self.resize(560, 560)

    def _pairing_changed(self) -> None:
        pairing = self.pairing_box.currentData()
        self._form.setRowVisible(self.anchor_box, pairing is Pairing.ANCHOR)
        self._form.setRowVisible(self.per_pair_spin, pairing is Pairing.BALANCED)

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
        try:
            spec = self.spec()
        except WorkbenchError as error:
            self.message.setText(str(error))
            return
        if not spec.name:
            self.message.setText("Give the campaign a name.")
            return
        try:
            self.summary = create_campaign(self.bundle, spec, self.plugins)
        except WorkbenchError as error:
            self.message.setText(str(error))
            return
        super().accept()
