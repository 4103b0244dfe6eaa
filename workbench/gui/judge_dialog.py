"""Tools > Run LLM judge…: the options of ``workbench judge`` in a dialog. *Estimate* plans the
run as a job of the window's job manager (seconds on a large bundle, so it is listed and can be
cancelled) and shows what it will send and cost; *Start* (possible only once the
current settings are estimated) runs it on the asyncio loop qasync shares with Qt, with live
progress; *Cancel* stops it cleanly, keeping every verdict already answered. The template's system
and user text can be edited: an edit is checked, then run as a version of its own."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QMessageBox,
    QSpinBox,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui.forms.ui_judge_dialog import Ui_JudgeDialog
from workbench.gui.jobs import Job, JobControl, JobStatus, jobs_for
from workbench.gui.locations import display_location
from workbench.gui.problem_dialog import show_problem
from workbench.gui.screen_fit import resize_within_screen
from workbench.judge.cost import DEFAULT_PRICES, PriceTable, default_prices, parse_price
from workbench.judge.last_used import (
    LOCAL_EXAMPLE,
    load_last_used,
    remember_endpoint,
    remembered,
)
from workbench.judge.limits import DEFAULT_MAX_COST, DEFAULT_MAX_REQUESTS, run_budget
from workbench.judge.secrets import resolve_api_key
from workbench.judge.templates import JudgeTemplate, TemplateError, edited_template
from workbench.plugins import Registry, registry
from workbench.services.judging.plan_text import (
    confirmation_text,
    money,
    plan_lines,
    plan_over_limits,
)
from workbench.services.judging.runner import (
    JudgePlan,
    JudgeProgress,
    JudgeRunner,
    JudgeSettings,
    JudgeSummary,
    plan_run,
)
from workbench.services.judging.worklist import JudgeScope

log = logging.getLogger(__name__)

#: the progress text is refreshed at most this often (seconds): one verdict arrives every few
#: milliseconds at full speed, and relaying out a label for each would be wasted work
PROGRESS_TEXT_INTERVAL = 0.1
#: what the jobs list says at each step of an estimate (plan_run)
ESTIMATE_STEPS = {
    "work list": "Reading the items and answers to judge…",
    "requests": "Building the requests…",
    "cache": "Looking up cached answers…",
    "images": "Checking the items' images…",
    "costs": "Counting the requests and their cost…",
}


def describe_plan(plan: JudgePlan) -> str:
    """The CLI's estimate lines, as sentences; then how it goes beyond the limits, if it does."""
    lines = [line[0].upper() + line[1:] + "." for line in plan_lines(plan)]
    over = plan_over_limits(plan)
    if over:
        lines.append(f"Above the limits: {'; '.join(over)}. Start asks first.")
    return "\n".join(lines)


def describe_progress(progress: JudgeProgress) -> str:
    return (
        f"{progress.done + progress.failed:,} of {progress.total:,} requests "
        f"({progress.cached:,} from the cache), {progress.verdicts:,} verdicts, "
        f"{progress.parse_failures:,} parse failures, {progress.failed:,} failed, "
        f"{progress.retries:,} retries, cost {money(progress.cost_usd)}, "
        f"{progress.elapsed:.1f} s"
    )


def describe_summary(summary: JudgeSummary) -> str:
    progress = summary.progress
    text = f"Run {summary.status.replace('_', ' ')}: {describe_progress(progress)}."
    text += (
        f" {progress.extracted:,} verdicts read by the follow-up, {progress.unresolved:,} "
        f"stored flagged; position flips: {summary.position_flips:,} of "
        f"{summary.compared_in_both_orders:,} comparisons judged in both orders."
    )
    if progress.failed:
        text += f" Failed: {progress.describe_failures()}."
    if summary.stop_reason and summary.status != "cancelled":
        text += f" Stopped: {summary.stop_reason}."
    return text


def _optional(spin: QSpinBox | QDoubleSpinBox) -> Any:
    """A spin box whose minimum (shown as "no limit") means None."""
    return None if spin.value() == spin.minimum() else spin.value()


class JudgeDialog(QDialog, Ui_JudgeDialog):
    """Emits :attr:`judged` with the bundle's location after a run stored verdicts."""

    judged = Signal(object)

    def __init__(
        self, bundle: str | Path, parent: QWidget | None = None, plugins: Registry | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run LLM judge")
        self.bundle = bundle
        self.templates: list[JudgeTemplate] = list((plugins or registry()).judge_templates())
        self.plan: JudgePlan | None = None
        self.runner: JudgeRunner | None = None
        #: the estimate, a job of the window's job manager while it plans
        self.estimate_job: Job | None = None
        self.run_job: Job | None = None  # the run, a job of the window's job manager
        self.summary: JudgeSummary | None = None
        self.message_box: QMessageBox | None = None
        #: the question asked before a run above its limits (open while it waits)
        self.confirm_box: QMessageBox | None = None
        self._last_text_update = 0.0
        #: the plugin's text as the editors give it back (they may normalise some characters),
        #: so that text left alone counts as unedited
        self._plugin_text = ("", "")
        #: edits of other templates, kept while another template is chosen: name -> texts
        self._drafts: dict[str, tuple[str, str]] = {}
        self._shown_template: str | None = None
        self._build()
        self._connect()
        #: (model, price text) filled in from memory: the price is that model's only
        self._restored_price: tuple[str, str] | None = None
        self._restore_endpoint()
        self.base_url_edit.editingFinished.connect(self._restore_endpoint)
        self.model_combo.currentTextChanged.connect(self._forget_restored_price)
        self._template_changed()
        self._set_state("idle")

    # --- layout ---------------------------------------------------------------------------------

    def _build(self) -> None:
        """What the static layout (ui/judge_dialog.ui) cannot say: values from the settings
        and the plugins, the system's fixed-width font, and buttons of the dialog's own roles."""
        self.setupUi(self)
        # the last endpoint and model used; never a hosted endpoint the user did not choose
        last = load_last_used()
        self.base_url_edit.setText(last.base_url or "")
        self.base_url_edit.setPlaceholderText(
            f"e.g. {LOCAL_EXAMPLE} (a local server) or https://api.openai.com/v1"
        )
        self.model_combo.addItems(sorted(DEFAULT_PRICES))
        self.model_combo.setCurrentText(last.model or "")
        for template in self.templates:
            self.template_combo.addItem(f"{template.name}: {template.title}", template.name)
        # the templates are laid out by their authors: shown as written, unwrapped, fixed-width
        fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for edit in (self.system_edit, self.user_edit, self.extraction_text):
            edit.setFont(fixed)
        self.max_cost_spin.setValue(DEFAULT_MAX_COST)
        self.max_requests_spin.setValue(DEFAULT_MAX_REQUESTS)
        role = QDialogButtonBox.ButtonRole
        self.estimate_button = self.buttons.addButton("Estimate", role.ActionRole)
        self.start_button = self.buttons.addButton("Start", role.AcceptRole)
        self.cancel_button = self.buttons.addButton("Cancel run", role.DestructiveRole)
        self.close_button = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        resize_within_screen(self, 1200, 760)

    def _connect(self) -> None:
        self.template_combo.currentIndexChanged.connect(self._template_changed)
        self.system_edit.textChanged.connect(self._prompt_edited)
        self.user_edit.textChanged.connect(self._prompt_edited)
        self.reset_button.clicked.connect(self.reset_prompt)
        self.campaign_radio.toggled.connect(self._selection_mode_changed)
        for edit in (
            self.base_url_edit,
            self.price_edit,
            self.campaign_edit,
            self.models_edit,
            self.items_edit,
            self.anchor_edit,
        ):
            edit.textChanged.connect(self._settings_changed)
        self.model_combo.currentTextChanged.connect(self._settings_changed)
        for spin in (
            self.limit_spin,
            self.concurrency_spin,
            self.max_cost_spin,
            self.max_requests_spin,
        ):
            spin.valueChanged.connect(self._settings_changed)
        self.swap_check.toggled.connect(self._settings_changed)
        self.text_only_check.toggled.connect(self._settings_changed)
        self.estimate_button.clicked.connect(self.estimate)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.reject)
        self._selection_mode_changed()

    # --- inputs ---------------------------------------------------------------------------------

    def template(self) -> JudgeTemplate | None:
        index = self.template_combo.currentIndex()
        return self.templates[index] if index >= 0 else None

    def set_template(self, name: str) -> None:
        index = self.template_combo.findData(name)
        if index < 0:
            raise WorkbenchError(f"no judge template named {name}")
        self.template_combo.setCurrentIndex(index)

    def prompt_text(self) -> tuple[str, str]:
        """The system and user text as they stand in the editors."""
        return self.system_edit.toPlainText(), self.user_edit.toPlainText()

    @property
    def prompt_edited(self) -> bool:
        return self.template() is not None and self.prompt_text() != self._plugin_text

    def run_template(self) -> JudgeTemplate:
        """The template a run uses: the plugin's, or its edit as a version of its own; raises
        TemplateError when the edit cannot be used."""
        template = self.template()
        if template is None:
            raise WorkbenchError("no judge template is installed")
        if not self.prompt_edited:
            return template
        return edited_template(template, *self.prompt_text())

    def reset_prompt(self) -> None:
        """Back to the plugin's text (and version)."""
        template = self.template()
        if template is not None:
            self._drafts.pop(template.name, None)
            self._show_prompt(template.system, template.user)
            self._prompt_edited()

    def _template_changed(self) -> None:
        if self._shown_template is not None:
            if self.prompt_edited:
                self._drafts[self._shown_template] = self.prompt_text()
            else:
                self._drafts.pop(self._shown_template, None)
        template = self.template()
        self._shown_template = None if template is None else template.name
        if template is None:
            self.template_description.setText("No plugin offers a judge template.")
            self._plugin_text = ("", "")
            self._show_prompt("", "")
        else:
            self.template_description.setText(template.description)
            # both orders, unless the benchmark fixes the side (one query per conversation)
            self.swap_check.setChecked(template.swaps_by_default)
            self._show_prompt(template.system, template.user)
            self._plugin_text = self.prompt_text()
            if template.name in self._drafts:
                self._show_prompt(*self._drafts[template.name])
        extraction = None if template is None else template.extraction
        self.extraction_label.setVisible(extraction is not None)
        self.extraction_text.setVisible(extraction is not None)
        self.extraction_text.setPlainText(
            ""
            if extraction is None
            else f"--- system ---\n{extraction.system}\n\n--- user ---\n{extraction.user}"
        )
        self._prompt_edited()

    def _show_prompt(self, system: str, user: str) -> None:
        for edit, text in ((self.system_edit, system), (self.user_edit, user)):
            edit.blockSignals(True)
            edit.setPlainText(text)
            edit.blockSignals(False)

    def _prompt_edited(self) -> None:
        """Shows whether the text is the plugin's and, if not, the version it runs as or why
        it cannot run."""
        template = self.template()
        edited = self.prompt_edited
        self.prompt_group.setTitle("Prompt template (edited)" if edited else "Prompt template")
        self.edited_label.setVisible(edited)
        if template is None:
            self.template_version.setText("")
        elif not edited:
            self.template_version.setText(f"version {template.version}")
        else:
            try:
                version = self.run_template().version
            except TemplateError as error:
                self.template_version.setText(f"version {template.version}, edited")
                self.edited_label.setText(f"Edited, and not usable as it is: {error}")
            else:
                self.template_version.setText(f"version {version}")
                self.edited_label.setText(
                    f"Edited: a run stores this text as version {version}, apart from the plugin's."
                )
        self._settings_changed()

    def _selection_mode_changed(self) -> None:
        by_campaign = self.campaign_radio.isChecked()
        self.campaign_edit.setEnabled(by_campaign)
        for edit in (self.models_edit, self.items_edit, self.anchor_edit):
            edit.setEnabled(not by_campaign)
        self._settings_changed()

    def _settings_changed(self) -> None:
        """A plan is for the settings it was made with: any change asks for a new estimate."""
        if self.plan is not None:
            self.plan = None
            self.estimate_label.setText("The settings changed: estimate the run again.")
        if self.estimate_job is None:
            self._set_state("idle")

    def settings(self) -> JudgeSettings:
        template = self.template()
        if template is None:
            raise WorkbenchError("no judge template is installed")
        model = self.model_combo.currentText().strip()
        base_url = self.base_url_edit.text().strip()  # an estimate needs none; a run does
        if not model:
            raise WorkbenchError("give the judge model")
        if self.campaign_radio.isChecked():
            campaign = self.campaign_edit.text().strip()
            if not campaign:
                raise WorkbenchError("name the campaign whose pairs to judge")
            selection = JudgeScope(
                campaign=campaign,
                swap=self.swap_check.isChecked(),
                limit=_optional(self.limit_spin),
            )
        else:
            text = self.models_edit.text().strip()
            models = None
            if text and text != "all":
                models = tuple(part.strip() for part in text.split(",") if part.strip())
            selection = JudgeScope(
                models=models,
                items=self.items_edit.text().strip() or "all",
                anchor=self.anchor_edit.text().strip() or None,
                swap=self.swap_check.isChecked(),
                limit=_optional(self.limit_spin),
            )
        return JudgeSettings(
            base_url=base_url,
            judge_model=model,
            template=template.name,
            selection=selection,
            concurrency=self.concurrency_spin.value(),
            # the spin boxes' minimum, "no limit", is 0; a cost limit needs a known price
            budget=run_budget(
                self.max_requests_spin.value(),
                self.max_cost_spin.value(),
                None,
                self.prices().for_model(model),
            ),
            text_only=self.text_only_check.isChecked(),
        )

    def prices(self) -> PriceTable:
        prices = default_prices()
        text = self.price_edit.text().strip()
        if text:
            model = self.model_combo.currentText().strip()
            prices = prices.with_price(model, parse_price(text), "the dialog's price field")
        return prices

    # --- what is remembered per endpoint (the app's settings file; never the key) --------------

    def _restore_endpoint(self) -> None:
        """Fill in what was used last with the endpoint shown: its model, the price the user
        gave for that model, and the requests at once."""
        memory = remembered(self.base_url_edit.text().strip())
        if memory.model is None:
            return
        self.model_combo.setCurrentText(memory.model)
        price = memory.price
        text = "" if price is None else f"{price.input_per_million:g},{price.output_per_million:g}"
        self.price_edit.setText(text)
        self._restored_price = (memory.model, text) if text else None
        if memory.concurrency is not None:
            self.concurrency_spin.setValue(memory.concurrency)

    def _forget_restored_price(self, model: str) -> None:
        """A remembered price belongs to its model: another model does not inherit it."""
        restored = self._restored_price
        if restored and model.strip() != restored[0] and self.price_edit.text() == restored[1]:
            self.price_edit.clear()
            self._restored_price = None

    def _remember_endpoint(self, settings: JudgeSettings) -> None:
        text = self.price_edit.text().strip()
        remember_endpoint(
            settings.base_url,
            settings.judge_model,
            parse_price(text) if text else None,
            settings.concurrency,
        )

    # --- running --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return any(job is not None and job.active for job in (self.estimate_job, self.run_job))

    def estimate(self) -> None:
        try:
            # the prompt's own problems first: they are what the user is working on
            template = self.run_template()
            settings, prices = self.settings(), self.prices()
        except WorkbenchError as error:
            self._show_problem(str(error), "")
            return
        bundle = self.bundle

        def work(control: JobControl) -> JudgePlan:
            # reading a large bundle's work list takes seconds: a job, stopped between steps
            return plan_run(
                bundle,
                settings,
                template=template,
                prices=prices,
                progress=control.reporter(ESTIMATE_STEPS),
                cancel_requested=control.cancelled,
            )

        self.plan = None
        self.estimate_label.setText("Estimating…")
        job = jobs_for(self).submit("Estimate an LLM judge run", "LLM judge estimate", work)
        self.estimate_job = job
        job.finished.connect(lambda: self._estimate_ended(job))
        if job.active:
            self._set_state("planning")

    def _estimate_ended(self, job: Job) -> None:
        if job is not self.estimate_job:
            return
        self.estimate_job = None
        if job.status is JobStatus.SUCCEEDED:
            self.plan = job.result
            self.estimate_label.setText(describe_plan(job.result))
        elif job.status is JobStatus.CANCELLED:
            self.estimate_label.setText("Estimate cancelled.")
            self.status_label.setText("Cancelled before anything was sent.")
        else:
            self.estimate_label.setText("Estimate the run to see what it will send and cost.")
            self._show_problem(job.error, job.details)
        self._set_state("idle")

    def start(self) -> None:
        """Start the estimated run; above its limits, only once the user agrees."""
        if self.plan is None:
            return
        if not self.plan.settings.base_url:
            self._show_problem(
                f"Give the endpoint's base URL, e.g. {LOCAL_EXAMPLE} for a local server or "
                "https://api.openai.com/v1.",
                "",
            )
            return
        if plan_over_limits(self.plan):
            box = QMessageBox(
                QMessageBox.Icon.Question,
                "LLM judge",
                confirmation_text(self.plan) + "\n\nStart anyway?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                parent=self,
            )
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.setDefaultButton(QMessageBox.StandardButton.No)
            box.finished.connect(self._confirmation_closed)
            self.confirm_box = box
            box.open()
            return
        self._start_confirmed()

    def _confirmation_closed(self, result: int) -> None:
        confirmed = self.confirm_box is not None and result == QMessageBox.StandardButton.Yes
        self.confirm_box = None
        if confirmed:
            self._start_confirmed()

    def _start_confirmed(self) -> None:
        plan = self.plan
        if plan is None or self.running:
            return
        self._remember_endpoint(plan.settings)
        name = Path(self.bundle).name if isinstance(self.bundle, Path) else None
        job = jobs_for(self).submit_async(
            f"LLM judge run on {name or display_location(self.bundle)}",
            "LLM judge run",
            lambda control: self._run(plan, control),
        )
        self.run_job = job
        job.finished.connect(lambda: self._run_ended(job))
        if job.active:
            self._set_state("running")

    def cancel(self) -> None:
        if self.run_job is not None and self.run_job.active:
            self.run_job.cancel()  # the run's own cancel: no new request, answers are kept
        elif self.estimate_job is not None and self.estimate_job.active:  # nothing sent yet
            self.estimate_job.cancel()
        self.cancel_button.setEnabled(False)
        self.status_label.setText("Cancelling: no new request starts; answers are kept…")

    async def _run(self, plan: JudgePlan, control: JobControl) -> JudgeSummary:
        self.summary = None
        self.status_label.setText("Looking up the API key…")
        key = await asyncio.to_thread(resolve_api_key, plan.settings.base_url)
        notes = " ".join(f"Note: {note}." for note in key.notes)

        def progress(progress: JudgeProgress) -> None:
            self._progress(progress)
            control.progress(progress.done + progress.failed, progress.total)

        runner = JudgeRunner(self.bundle, plan, key.secret, on_progress=progress)
        self.runner = runner
        control.on_cancel(runner.cancel)
        self.progress_bar.setRange(0, max(1, len(plan.pending)))
        self.progress_bar.setValue(0)
        self.status_label.setText(f"Starting… {notes}".strip())
        try:
            summary = await runner.run()
        finally:
            self.plan = None  # what is left has changed: a new run needs a new estimate
        self.summary = summary
        self.progress_bar.setValue(summary.progress.done + summary.progress.failed)
        self.status_label.setText(f"{describe_summary(summary)} {notes}".strip())
        self.estimate_label.setText("Estimate again to resume or to judge something else.")
        self.judged.emit(self.bundle)
        return summary

    def _run_ended(self, job: Job) -> None:
        if job.result is not None:
            job.set_outcome(describe_summary(job.result))
        if job.status is JobStatus.FAILED:
            self.status_label.setText("The judge did not run to the end.")
            self._show_problem(job.error, job.details)
        elif job.status is JobStatus.CANCELLED and job.result is None:
            self.status_label.setText("Cancelled before anything was sent.")
        self.job = None
        if not self.running:
            self._set_state("idle")

    def _progress(self, progress: JudgeProgress) -> None:
        self.progress_bar.setValue(progress.done + progress.failed)
        now = time.monotonic()
        if now - self._last_text_update >= PROGRESS_TEXT_INTERVAL:
            self._last_text_update = now
            self.status_label.setText(describe_progress(progress))

    def _set_state(self, state: str) -> None:
        idle = state == "idle"
        for widget in (
            self.base_url_edit,
            self.model_combo,
            self.price_edit,
            self.template_combo,
            self.campaign_radio,
            self.models_radio,
            self.limit_spin,
            self.concurrency_spin,
            self.swap_check,
            self.max_cost_spin,
            self.max_requests_spin,
            self.text_only_check,
            self.estimate_button,
            self.close_button,
        ):
            widget.setEnabled(idle)
        by_campaign = self.campaign_radio.isChecked()
        self.campaign_edit.setEnabled(idle and by_campaign)
        for edit in (self.models_edit, self.items_edit, self.anchor_edit):
            edit.setEnabled(idle and not by_campaign)
        self.start_button.setEnabled(idle and self.plan is not None)
        for prompt_edit in (self.system_edit, self.user_edit):
            prompt_edit.setReadOnly(not idle)  # what runs is what was estimated
        self.reset_button.setEnabled(idle and self.prompt_edited)
        self.cancel_button.setEnabled(not idle)
        if state == "planning":
            self.progress_bar.setRange(0, 0)
        elif self.progress_bar.maximum() == 0:  # planning ended: no longer busy
            self.progress_bar.setRange(0, 1)

    def _show_problem(self, message: str, details: str) -> None:
        self.message_box = show_problem(self, "LLM judge", message, details)

    def reject(self) -> None:
        if not self.running:  # a run's outcome must be seen; cancel it first
            super().reject()
