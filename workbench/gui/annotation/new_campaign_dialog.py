"""Annotate > New campaign: the form of ``workbench campaign create``, every option of it, with a
live preview of the schedule (tasks, attention checks, practice round, each annotator's share)
drawn by the same service the command uses (``create_campaign(..., dry_run=True)``), on a
worker thread as the options change. Create stores the campaign (a job of the window's job
manager) or shows why it cannot.

The form's rows are built from :data:`OPTIONS`, one entry per option of ``campaign create``
(a test checks the two lists agree), so an option the command gains is one entry here.

This dialog names models (it is for the campaign's owner, not for annotators) and is never part
of the annotation view.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui.background import BackgroundRunner
from workbench.gui.forms.ui_new_campaign_dialog import Ui_NewCampaignDialog
from workbench.gui.jobs import Job, JobControl, JobStatus, jobs_for
from workbench.gui.screen_fit import resize_within_screen
from workbench.plugins import Registry, registry
from workbench.services.campaign_items import REFERENCE_NAME, ItemSpec
from workbench.services.campaign_settings import (
    DEFAULT_LEASE_MINUTES,
    DEFAULT_PACK_LEASE_DAYS,
    CampaignSettings,
)
from workbench.services.campaigns import (
    CampaignSpec,
    CampaignSummary,
    check_guidelines,
    create_campaign,
    list_annotators,
    read_attention_checks,
    read_practice_tasks,
)
from workbench.services.scheduling import Pairing
from workbench.storage.bundle import Bundle

NATURAL_PAIRING = "uniform (the protocol's pairs)"
#: the pairing box's entry for adaptive pairing (the protocol's pairs, chosen from the votes)
ADAPTIVE_PAIRING = "adaptive"
#: what the jobs list says at each step of create_campaign (its CREATE_STEPS)
CREATION_STEPS = {
    "items": "Reading the items…",
    "eligibility": "Finding what each item can show…",
    "schedule": "Drawing the schedule…",
    "storing": "Storing the tasks…",
    "counters": "Setting up the progress counters…",
}
#: the preview waits this long after the last change before drawing the schedule again
PREVIEW_DELAY_MS = 250
#: the name a preview uses while the form has none (the preview needs one; it stores nothing)
UNNAMED = "(unnamed)"


@dataclass(frozen=True)
class FormContext:
    """What the option rows are built from: the bundle's sources, models and annotators."""

    plugins: Registry
    sources: Sequence[str]
    models: Sequence[str]
    annotators: Sequence[str]


@dataclass(frozen=True)
class FormOption:
    """One option of ``campaign create`` as a row of the form: ``build`` makes its widget
    (kept as the dialog's attribute ``attribute``), ``read`` turns the widget into keyword
    arguments of :class:`CampaignSpec` (it may raise a WorkbenchError naming what is wrong),
    and ``shown`` says whether the row applies to the rest of the form (default: always)."""

    flag: str
    attribute: str
    label: str
    build: Callable[[FormContext, QWidget], QWidget]
    read: Callable[[Any], dict[str, Any]]
    shown: Callable[[NewCampaignDialog], bool] | None = None
    tip: str = ""


# --- widgets ------------------------------------------------------------------------------------


def _line(placeholder: str = "") -> Callable[[FormContext, QWidget], QWidget]:
    def build(_: FormContext, parent: QWidget) -> QWidget:
        field = QLineEdit(parent)
        field.setPlaceholderText(placeholder)
        return field

    return build


def _spin(
    minimum: int, maximum: int, value: int, special: str = ""
) -> Callable[[FormContext, QWidget], QWidget]:
    def build(_: FormContext, parent: QWidget) -> QWidget:
        spin = QSpinBox(parent)
        spin.setRange(minimum, maximum)
        spin.setValue(value)
        spin.setSpecialValueText(special)
        return spin

    return build


def _decimal(special: str) -> Callable[[FormContext, QWidget], QWidget]:
    """A positive number, 0 showing ``special`` (the command's default)."""

    def build(_: FormContext, parent: QWidget) -> QWidget:
        spin = QDoubleSpinBox(parent)
        spin.setRange(0, 100_000)
        spin.setDecimals(1)
        spin.setSpecialValueText(special)
        spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
        return spin

    return build


def _check(text: str, checked: bool) -> Callable[[FormContext, QWidget], QWidget]:
    def build(_: FormContext, parent: QWidget) -> QWidget:
        box = QCheckBox(text, parent)
        box.setChecked(checked)
        return box

    return build


class FileField(QWidget):
    """A path typed or chosen with Browse…"""

    def __init__(self, placeholder: str, pattern: str, parent: QWidget) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.field = QLineEdit(self)
        self.field.setPlaceholderText(placeholder)
        self.browse = QPushButton("Browse…", self)
        self.browse.clicked.connect(lambda: self._browse(pattern))
        row.addWidget(self.field, 1)
        row.addWidget(self.browse)

    def _browse(self, pattern: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a file", "", pattern)
        if path:
            self.field.setText(path)

    def path(self) -> Path | None:
        text = self.field.text().strip()
        return Path(text) if text else None


def _file(placeholder: str, pattern: str) -> Callable[[FormContext, QWidget], QWidget]:
    return lambda _, parent: FileField(placeholder, pattern, parent)


def _checklist(
    names: Callable[[FormContext], Sequence[str]], checked: Callable[[str], bool]
) -> Callable[[FormContext, QWidget], QWidget]:
    def build(context: FormContext, parent: QWidget) -> QWidget:
        listing = QListWidget(parent)
        listing.setMaximumHeight(110)
        for name in names(context):
            entry = QListWidgetItem(name, listing)
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(Qt.CheckState.Checked if checked(name) else Qt.CheckState.Unchecked)
        return listing

    return build


def checked_names(listing: QListWidget) -> list[str]:
    return [
        listing.item(row).text()
        for row in range(listing.count())
        if listing.item(row).checkState() == Qt.CheckState.Checked
    ]


def _protocols(context: FormContext, parent: QWidget) -> QWidget:
    box = QComboBox(parent)
    for protocol in context.plugins.protocols():
        criteria = ", ".join(criterion.label for criterion in protocol.criteria)
        box.addItem(f"{protocol.title} ({protocol.name})", protocol.name)
        box.setItemData(box.count() - 1, f"Criteria: {criteria}", Qt.ItemDataRole.ToolTipRole)
    return box


def _items(context: FormContext, parent: QWidget) -> QWidget:
    box = QComboBox(parent)
    box.setEditable(True)
    box.addItems(["all", *context.sources])
    return box


def _pairings(_: FormContext, parent: QWidget) -> QWidget:
    box = QComboBox(parent)
    box.addItem(NATURAL_PAIRING, None)
    for pairing in Pairing:
        box.addItem(pairing.value, pairing)
    box.addItem(ADAPTIVE_PAIRING, ADAPTIVE_PAIRING)
    box.setItemData(
        box.count() - 1,
        "the protocol's pairs; each next model pair chosen from the votes so far where a vote "
        "narrows the unresolved rating differences most",
        Qt.ItemDataRole.ToolTipRole,
    )
    return box


def _anchors(context: FormContext, parent: QWidget) -> QWidget:
    box = QComboBox(parent)
    box.addItem("", None)
    for name in [REFERENCE_NAME, *context.models]:
        box.addItem(name, name)
    return box


#: every setting's default, as a campaign that never stored it reads it
DEFAULTS = CampaignSettings()


def _contexts(_: FormContext, parent: QWidget) -> QWidget:
    box = QComboBox(parent)
    box.setEditable(True)
    box.addItem(DEFAULTS.output_context)
    return box


# --- reading ------------------------------------------------------------------------------------


def _pairing(dialog: NewCampaignDialog) -> Pairing | None:
    """The pairs the form schedules (None: the protocol's, also for adaptive pairing)."""
    data = dialog.pairing_box.currentData()
    return data if isinstance(data, Pairing) else None


def _read_pairing(box: QComboBox) -> dict[str, Any]:
    data = box.currentData()
    if data == ADAPTIVE_PAIRING:
        return {"pairing": None, "pair_choice": "adaptive"}
    return {"pairing": cast(Pairing | None, data), "pair_choice": "uniform"}


def _read_text_file(path: Path | None, flag: str) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise WorkbenchError(f"{flag}: cannot read {path}: {reason}") from None


def _read_guidelines(field: FileField) -> dict[str, Any]:
    text = _read_text_file(field.path(), "Guidelines")
    return {"guidelines": check_guidelines(text) if text is not None else None}


def _positive(spin: QDoubleSpinBox) -> float | None:
    return spin.value() or None


#: every option of ``workbench campaign create`` but the bundle, --json and --dry-run (the
#: preview is the dry run), in the form's order
OPTIONS: tuple[FormOption, ...] = (
    FormOption(
        "--name", "name_field", "&Name", _line("shown to annotators"),
        lambda w: {"name": w.text().strip()},
    ),
    FormOption(
        "--protocol", "protocol_box", "&Protocol", _protocols,
        lambda w: {"protocol": w.currentData()},
        tip="the criteria of each protocol are in its tooltip",
    ),
    FormOption(
        "--items", "items_box", "&Items", _items,
        lambda w: {"items": ItemSpec(w.currentText().strip() or "all")},
        tip="'all', a source, or comma-separated item ids",
    ),
    FormOption(
        "--models", "model_list", "&Models",
        _checklist(lambda c: [*c.models, REFERENCE_NAME], lambda n: n != REFERENCE_NAME),
        lambda w: {"models": checked_names(w) or None},
        shown=lambda d: d.protocol_display() != "none",
    ),
    FormOption(
        "--pairing", "pairing_box", "Pai&ring", _pairings, _read_pairing,
        shown=lambda d: d.protocol_display() != "none",
    ),
    FormOption(
        "--anchor", "anchor_box", "&Anchor", _anchors,
        lambda w: {"anchor": w.currentData()},
        shown=lambda d: _pairing(d) in (Pairing.ANCHOR, Pairing.BALANCED)
        and d.protocol_display() == "pair",
    ),
    FormOption(
        "--pairs-per-model-pair", "per_pair_spin", "Pairs per model pair", _spin(1, 100_000, 10),
        lambda w: {"pairs_per_model_pair": w.value()},
        shown=lambda d: _pairing(d) is Pairing.BALANCED,
    ),
    FormOption(
        "--votes-per-pair", "votes_spin", "&Votes per task", _spin(1, 99, 1),
        lambda w: {"votes_per_pair": w.value()},
        tip="how many annotators answer each task",
    ),
    FormOption(
        "--annotators", "annotator_list", "Anno&tators",
        _checklist(lambda c: c.annotators, lambda _: False),
        lambda w: {"annotators": checked_names(w)},
        tip="tick those who work on it; none ticked: every annotator of the bundle",
    ),
    FormOption(
        "--seed", "seed_spin", "&Seed", _spin(0, 2**31 - 1, 0),
        lambda w: {"seed": w.value()},
        tip="the same seed draws the same schedule",
    ),
    FormOption(
        "--context", "context_box", "Output conte&xt", _contexts,
        lambda w: {"output_context": w.currentText().strip() or DEFAULTS.output_context},
        tip="which outputs to show",
    ),
    FormOption(
        "--guidelines", "guidelines_field", "&Guidelines",
        _file("none (markdown, shown when annotators start and on F1)", "Markdown (*.md);;All (*)"),
        _read_guidelines,
    ),
    FormOption(
        "--gold", "gold_field", "Attention chec&ks",
        _file("none (JSONL: item, answer, first, second, turn)", "JSONL (*.jsonl);;All (*)"),
        lambda w: {"gold": read_attention_checks(p) if (p := w.path()) else ()},
    ),
    FormOption(
        "--practice-file", "practice_file", "Practice &file",
        _file(
            "none: answers marked right and wrong in the data, when a count is given",
            "Practice tasks (*.jsonl);;All files (*)",
        ),
        lambda w: {"practice": read_practice_tasks(p) if (p := w.path()) else ()},
    ),
    FormOption(
        "--practice", "practice_spin", "Practice tasks",
        _spin(0, 1000, 0, "all in the file (none without one)"),
        lambda w: {"practice_count": w.value() or None},
    ),
    FormOption(
        "--practice-required", "practice_optional_box", "",
        _check("Annotators may skip the practice round", DEFAULTS.practice_optional),
        lambda w: {"practice_optional": w.isChecked()},
    ),
    FormOption(
        "--without-missing-images", "without_missing_box", "",
        _check("Leave out items whose image is missing", True),
        lambda w: {"without_missing_images": w.isChecked()},
    ),
    FormOption(
        "--exclude-flagged", "exclude_flagged_box", "",
        _check("Leave out flagged answers and items", DEFAULTS.exclude_flagged),
        lambda w: {"exclude_flagged": w.isChecked()},
        tip="a broken image, an answer that names its model, offensive content",
    ),
    FormOption(
        "--lease-minutes", "lease_spin", "Task reserved (min)",
        _decimal(f"{DEFAULT_LEASE_MINUTES:g} (the default)"),
        lambda w: {"lease_minutes": _positive(w)},
        tip="how long a task shown to an annotator stays theirs",
    ),
    FormOption(
        "--pack-lease-days", "pack_lease_spin", "Pack reserved (days)",
        _decimal(f"{DEFAULT_PACK_LEASE_DAYS:g} (the default)"),
        lambda w: {"pack_lease_days": _positive(w)},
        tip="how long an offline pack's tasks stay reserved for its annotator",
    ),
)  # fmt: skip


class NewCampaignDialog(QDialog, Ui_NewCampaignDialog):
    """A form over ``CampaignSpec`` with the preview of its schedule."""

    #: the creation, once Create was pressed
    job: Job | None = None
    # the option rows' widgets, set from OPTIONS by their attribute names
    name_field: QLineEdit
    protocol_box: QComboBox
    items_box: QComboBox
    model_list: QListWidget
    pairing_box: QComboBox
    anchor_box: QComboBox
    per_pair_spin: QSpinBox
    votes_spin: QSpinBox
    annotator_list: QListWidget
    seed_spin: QSpinBox
    context_box: QComboBox
    guidelines_field: FileField
    gold_field: FileField
    practice_file: FileField
    practice_spin: QSpinBox
    practice_optional_box: QCheckBox
    without_missing_box: QCheckBox
    exclude_flagged_box: QCheckBox
    lease_spin: QDoubleSpinBox
    pack_lease_spin: QDoubleSpinBox

    def __init__(
        self,
        bundle: Bundle,
        sources: Sequence[str],
        models: Sequence[str],
        plugins: Registry | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setupUi(self)  # ui/new_campaign_dialog.ui: the form's frame, preview and buttons
        self.bundle = bundle
        self.plugins = plugins or registry()
        self.summary: CampaignSummary | None = None
        #: the last preview drawn (None: none yet, or the options do not give a schedule)
        self.previewed: CampaignSummary | None = None
        #: previews asked for; only the latest one's answer is shown
        self._preview_asked = 0
        self.previews_shown = 0
        self.runner = BackgroundRunner(self, in_order=True, kind="Preview")
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.preview_now)
        context = FormContext(
            self.plugins,
            list(sources),
            list(models),
            [annotator.handle for annotator in list_annotators(bundle)],
        )
        self.option_widgets: dict[str, QWidget] = {}
        for option in OPTIONS:
            widget = option.build(context, self.form_host)
            widget.setObjectName(option.attribute)
            widget.setToolTip(f"{option.tip} ({option.flag})" if option.tip else option.flag)
            setattr(self, option.attribute, widget)
            self.option_widgets[option.flag] = widget
            self.form.addRow(option.label, widget)
            self._watch(widget)
        self.seed_spin.setValue(random.randrange(2**31 - 1))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._options_changed()
        resize_within_screen(self, 960, 720)
        # typing starts with the name (the frame's first focus was elsewhere, so the keys of a
        # name typed at once were lost)
        self.name_field.setFocus()

    # --- the form -------------------------------------------------------------------------

    @property
    def practice_file_field(self) -> QLineEdit:
        """The practice file's path field."""
        return self.practice_file.field

    def protocol_display(self) -> str:
        """How the chosen protocol shows outputs: "pair", "single" or "none"."""
        name = self.protocol_box.currentData()
        return self.plugins.protocol(name).display.value if name else "pair"

    def chosen_models(self) -> list[str]:
        return checked_names(self.model_list)

    def _watch(self, widget: QWidget) -> None:
        """Draw the preview again (and show or hide rows) when ``widget`` changes."""
        changed = self._options_changed
        if isinstance(widget, QLineEdit):
            widget.textChanged.connect(changed)
        elif isinstance(widget, QComboBox):
            widget.currentIndexChanged.connect(changed)
            widget.editTextChanged.connect(changed)
        elif isinstance(widget, QSpinBox | QDoubleSpinBox):
            widget.valueChanged.connect(changed)
        elif isinstance(widget, QCheckBox):
            widget.toggled.connect(changed)
        elif isinstance(widget, QListWidget):
            widget.itemChanged.connect(changed)
        elif isinstance(widget, FileField):
            widget.field.textChanged.connect(changed)

    def _options_changed(self) -> None:
        for option in OPTIONS:
            if option.shown is not None:
                self.form.setRowVisible(self.option_widgets[option.flag], option.shown(self))
        self._preview_asked += 1
        self._preview_timer.start()

    def spec(self) -> CampaignSpec:
        """The campaign the form describes; may raise a WorkbenchError naming the option."""
        values: dict[str, Any] = {}
        for option in OPTIONS:
            if option.shown is None or option.shown(self):
                values |= option.read(self.option_widgets[option.flag])
        return CampaignSpec(**values)

    # --- the preview ----------------------------------------------------------------------

    def preview_now(self) -> None:
        """Draw the schedule the form describes on a worker (``create_campaign`` with
        ``dry_run``), and show it when it is still the latest asked for."""
        self._preview_timer.stop()
        asked = self._preview_asked
        try:
            spec = self.spec()
        except WorkbenchError as error:
            self._show_preview(asked, error)
            return
        if not spec.name:
            spec = replace(spec, name=UNNAMED)
        bundle, plugins = self.bundle, self.plugins
        self.preview.setText("Drawing the schedule…")
        self.runner.run(
            lambda: create_campaign(bundle, spec, plugins, dry_run=True),
            lambda summary: self._show_preview(asked, summary),
            lambda error: self._show_preview(asked, error),
        )

    def _show_preview(self, asked: int, result: CampaignSummary | BaseException) -> None:
        if asked != self._preview_asked:
            return  # the form changed since: a newer preview is coming
        self.previews_shown += 1
        if isinstance(result, BaseException):
            self.previewed = None
            self.preview.setText(f"No schedule: {result}")
            return
        self.previewed = result
        self.preview.setText(preview_text(result))

    @property
    def previewing(self) -> bool:
        """Whether a preview is due or being drawn."""
        return self._preview_timer.isActive() or self.runner.busy

    # --- creating -------------------------------------------------------------------------

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


def preview_text(summary: CampaignSummary) -> str:
    """The schedule a summary describes, as the preview shows it (``campaign create
    --dry-run`` prints the same figures)."""
    unit = "item turns" if summary.per_turn else "items"
    lines = [
        f"{summary.tasks - summary.gold_tasks} tasks on {summary.items} {unit}, "
        f"{summary.votes_per_pair} vote(s) each ({summary.pairing_text}, seed {summary.seed})",
        f"Attention checks: {summary.gold_tasks}",
        f"Practice round: {summary.practice_tasks} task(s)",
        f"Contestants: {', '.join(summary.contestants) or 'none (the items are judged)'}",
    ]
    lines += [f"{pair}: {n} short of the target" for pair, n in summary.shortfalls.items()]
    if summary.items_missing_images:
        lines.append(f"Warning: {summary.items_missing_images} item(s) miss an image")
    if summary.left_out_missing_images:
        lines.append(f"Left out {summary.left_out_missing_images} item(s) missing an image")
    return "\n".join([*lines, "", *summary.annotator_lines()])
