"""Judge runs: plan one (what to send, what is already judged or cached, what it will cost), then
run it on an asyncio loop with bounded concurrency, storing every verdict with its provenance as
it arrives. Cancelling stops cleanly; running the same settings again resumes the same run and
judges only what is left.

The GUI calls :func:`plan_run` in a worker thread and awaits :meth:`JudgeRunner.run` on the
qasync loop; the CLI does the same on a plain loop. Bundle reads and writes, image encoding and the
final bookkeeping run in threads, so the loop is never blocked by them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from workbench import plugins
from workbench.errors import WorkbenchError
from workbench.judge.calls import JudgeCall
from workbench.judge.client import (
    Budget,
    BudgetExhausted,
    EndpointError,
    JudgeClient,
    RequestFailed,
    RetryPolicy,
)
from workbench.judge.cost import CostEstimate, Price, PriceTable, default_prices
from workbench.judge.images import data_url
from workbench.judge.parsing import ParsedVerdict, Slot
from workbench.judge.request_hash import canonical_json
from workbench.judge.secrets import Secret, public_base_url
from workbench.judge.templates import ExtractionStep, JudgeTemplate
from workbench.judge.turn_judgments import turn_judgments_text
from workbench.logging_setup import redact
from workbench.progress import CancelRequested, Progress, Steps, never_cancelled, no_progress
from workbench.services.flags import flag_sent_answers
from workbench.services.judging import cache
from workbench.services.judging.cache import CachedResponse
from workbench.services.judging.verdicts import (
    OVERALL_PASS_KEY,
    CallRecord,
    Resolution,
    mark_position_flips,
    resolve,
    stored_sides,
    verdict_rows,
)
from workbench.services.judging.worklist import JudgeScope, WorkUnit, build_work_list, side_name
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import insert_ignoring_conflicts
from workbench.storage.judgment_counts import changing_run_context, counting_verdicts
from workbench.storage.models import Image, JudgeRun, JudgeVerdict, utcnow
from workbench.storage.queries import missing_image_slots

log = logging.getLogger(__name__)

RunStatus = Literal[
    "created", "running", "completed", "incomplete", "cancelled", "budget_exhausted", "failed"
]

#: how often completed verdicts are written, at the latest (seconds)
FLUSH_INTERVAL = 0.25

#: a run's claim lasts this long unless renewed (seconds): a killed process holds it no longer
CLAIM_SECONDS = 60.0
#: the process judging a run renews its claim this often (seconds)
CLAIM_RENEWAL = 15.0

#: workers start this far apart (seconds). Started together, they stay in step: their answers
#: arrive in bursts that keep the event loop busy for tens of milliseconds at a time; spread
#: out, the answers come one by one. Throughput is unaffected after the first few requests.
RAMP_UP_STEP = 0.01


class RunSettingsError(WorkbenchError):
    pass


class RunBusyError(WorkbenchError):
    """Another process is judging the same run: this one stays out rather than pay twice."""


class AnswerNotUsable(WorkbenchError):
    """An answer arrived but could not be read or stored: the request counts as failed."""


@dataclass(frozen=True)
class JudgeSettings:
    """Everything a run is asked to do. ``temperature`` and ``max_tokens`` None take the
    template's; ``run_name`` None names the run after what decides its requests, so running
    the same settings again resumes it."""

    base_url: str
    judge_model: str
    template: str
    selection: JudgeScope = field(default_factory=JudgeScope)
    concurrency: int = 8
    budget: Budget = field(default_factory=Budget)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    temperature: float | None = None
    max_tokens: int | None = None
    run_name: str | None = None
    use_cache: bool = True
    #: allow an image-based template on items whose images are all missing (judged on text)
    text_only: bool = False


@dataclass(frozen=True)
class PlannedUnit:
    unit: WorkUnit
    call: JudgeCall
    cached: CachedResponse | None


@dataclass
class JudgePlan:
    """What a run will do; shown to the user (the estimate) before anything is sent."""

    run_name: str
    #: whether an earlier run of this name stored verdicts (this one resumes it)
    run_exists: bool
    template: JudgeTemplate
    settings: JudgeSettings
    pending: list[PlannedUnit]
    total_units: int
    already_judged: int
    comparisons: int
    skipped: dict[str, int]
    model_ids: dict[str, int]
    price: Price | None
    estimate: CostEstimate
    #: verdicts judged before that this run asks again and replaces (--no-cache)
    replaces: int = 0
    #: requests to send that repeat another one exactly (sent once, the answer shared)
    identical: int = 0
    #: requests of an image-based template that go without some of their item's images, and
    #: those of them that go without any image (text only), because the images are missing
    missing_images: int = 0
    without_images: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_name,
            "resumes_existing_run": self.run_exists,
            "replaces_verdicts": self.replaces,
            "identical_requests_sent_once": self.identical,
            "requests_missing_images": self.missing_images,
            "requests_without_images": self.without_images,
            "limits": self.settings.budget.as_dict(),
            "template": self.template.label,
            "judge_model": self.settings.judge_model,
            "concurrency": self.settings.concurrency,
            "comparisons": self.comparisons,
            "requests_total": self.total_units,
            "skipped_comparisons": self.skipped,
            "estimate": self.estimate.as_dict(),
        }


@dataclass
class JudgeProgress:
    """Counts so far. ``total`` is the requests this session has to make (resumed runs leave
    out what was judged before); ``cost_usd`` is None when the model has no price."""

    total: int = 0
    done: int = 0
    verdicts: int = 0
    cached: int = 0
    parse_failures: int = 0
    extracted: int = 0
    unresolved: int = 0
    failed: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    elapsed: float = 0.0
    #: failed requests by reason ("timeout", "HTTP 500", "no usable completion", ...)
    failure_reasons: dict[str, int] = field(default_factory=dict)
    #: the message of the first failed request, to show what went wrong
    first_failure: str | None = None

    def note_failure(self, reason: str, message: str) -> None:
        self.failed += 1
        self.failure_reasons[reason] = self.failure_reasons.get(reason, 0) + 1
        if self.first_failure is None:
            self.first_failure = message

    def describe_failures(self) -> str:
        """``3 timeout, 1 HTTP 500; the first: ...``, or "" when nothing failed."""
        if not self.failure_reasons:
            return ""
        counts = ", ".join(
            f"{count} {reason}"
            for reason, count in sorted(self.failure_reasons.items(), key=lambda kv: -kv[1])
        )
        return f"{counts}; the first: {self.first_failure}"


@dataclass
class JudgeSummary:
    run_name: str
    status: RunStatus
    already_judged: int
    progress: JudgeProgress
    compared_in_both_orders: int = 0
    position_flips: int = 0
    stop_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_name,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "already_judged": self.already_judged,
            **{
                key: round(value, 6) if isinstance(value, float) else value
                for key, value in asdict(self.progress).items()
            },
            "compared_in_both_orders": self.compared_in_both_orders,
            "position_flips": self.position_flips,
        }


# --- planning ----------------------------------------------------------------------------------


def _parameters(settings: JudgeSettings, template: JudgeTemplate) -> dict[str, Any]:
    return {
        "temperature": template.temperature
        if settings.temperature is None
        else settings.temperature,
        "max_tokens": template.max_tokens if settings.max_tokens is None else settings.max_tokens,
    }


def default_run_name(settings: JudgeSettings, template: JudgeTemplate) -> str:
    """A name from what decides the run's requests (template text, model, parameters, what is
    judged; not the limit, the budget or the endpoint), so the same command resumes it."""
    digest = hashlib.sha256(
        canonical_json(
            {
                "template": template.as_record(),
                "model": settings.judge_model,
                "parameters": _parameters(settings, template),
                "selection": settings.selection.as_dict(),
            }
        ).encode()
    ).hexdigest()
    return f"{template.label} {settings.judge_model} {digest[:8]}"


def resolve_template(name: str, template: JudgeTemplate | None = None) -> JudgeTemplate:
    if template is not None:
        return template
    return plugins.registry().judge_template(name)


#: requests built between two progress reports (and chances to cancel) of :func:`plan_run`
UNITS_PER_STEP = 1000


def plan_run(
    bundle_path: str | Path,
    settings: JudgeSettings,
    *,
    template: JudgeTemplate | None = None,
    prices: PriceTable | None = None,
    progress: Progress = no_progress,
    cancel_requested: CancelRequested = never_cancelled,
) -> JudgePlan:
    """Work out a run without sending anything. ``template`` overrides the registry's (the GUI
    passes an edited copy). Blocking: call it in a worker thread from a GUI.

    ``progress`` follows reading the work list ("work list"), building each request
    ("requests", per :data:`UNITS_PER_STEP`), the cache lookup ("cache"), the check of the
    items' images ("images") and the count of what is sent and its cost ("costs"); once
    ``cancel_requested()`` is true the next step raises
    :class:`~workbench.progress.WorkCancelledError` (planning only reads)."""
    steps = Steps(progress, cancel_requested, "estimate cancelled; nothing was sent")
    template = resolve_template(settings.template, template)
    if settings.concurrency < 1:
        raise RunSettingsError("concurrency must be at least 1")
    parameters = _parameters(settings, template)
    prices = prices or default_prices()
    price = prices.for_model(settings.judge_model)
    if settings.budget.max_cost is not None and price is None:
        raise RunSettingsError(
            f"no price is known for {settings.judge_model}, so a cost limit cannot be kept: "
            "give one with --price INPUT,OUTPUT (dollars per million tokens)"
        )
    run_name = settings.run_name or default_run_name(settings, template)
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        run = session.scalar(select(JudgeRun).where(JudgeRun.name == run_name))
        if run is not None and (
            run.template_name != template.name
            or run.template_version != template.version
            or run.judge_model != settings.judge_model
        ):
            raise RunSettingsError(
                f"run '{run_name}' in {bundle.location} used "
                f"{run.template_name}@{run.template_version} with {run.judge_model}; "
                "choose another run name"
            )
        steps("work list", 0, 0)
        work = build_work_list(session, template, settings.selection, steps)
        # what the run holds already, per item: two items sending the same request are two
        # units, each with its own verdicts
        done: set[tuple[int, str, int, int | None]] = set()
        if run is not None:
            done = {
                (item, digest, model_a, model_b)
                for item, digest, model_a, model_b in session.execute(
                    select(
                        JudgeVerdict.item_id,
                        JudgeVerdict.request_hash,
                        JudgeVerdict.model_a_id,
                        JudgeVerdict.model_b_id,
                    ).where(JudgeVerdict.run_id == run.id)
                )
            }
        calls = []
        keys = []
        units = len(work.units)
        for number, unit in enumerate(work.units):
            if number % UNITS_PER_STEP == 0:
                steps("requests", number, units)
            call = _call(unit, template, settings.judge_model, parameters)
            calls.append((unit, call))
            keys.append(_stored_key(unit, call, work.model_ids))
        # an earlier run that stored nothing (every request failed) is nothing to resume
        judged_before = bool(done)
        # Without the cache, everything is asked again: a verdict judged before is replaced
        # by the new answer (an endpoint's bad answers must not stick to a run for good).
        replaced = sum(key in done for key in keys)
        if not settings.use_cache:
            done = set()
        remaining = [pair for pair, key in zip(calls, keys, strict=True) if key not in done]
        steps("cache", 0, 0)
        cached = (
            cache.lookup(session, [call.hash for _, call in remaining], steps)
            if settings.use_cache
            else {}
        )
        steps("images", 0, 0)
        missing_slots = (
            missing_image_slots(session, {unit.item_id for unit, _ in remaining})
            if template.send_images
            else {}
        )
    pending = []
    for number, (unit, call) in enumerate(remaining):
        if number % UNITS_PER_STEP == 0:
            steps("costs", number, 2 * len(remaining))
        pending.append(PlannedUnit(unit, call, cached.get(call.hash)))
    losing = (
        [p for p in pending if missing_slots.get(p.unit.item_id) or not p.unit.case.images]
        if template.send_images
        else []
    )
    without = sum(1 for p in losing if not p.unit.case.images)
    if without and not settings.text_only:
        raise RunSettingsError(
            f"{without:,} of {len(pending):,} requests would be sent without any image (their "
            f"items' images are missing, or they have none), but {template.name} judges "
            "images: pass --text-only to judge them on text alone, or choose items that have "
            "their images"
        )
    to_send = [p for p in pending if p.cached is None]
    # identical requests within the run are sent once
    distinct = {p.call.hash: p.call for p in to_send}
    prompt_tokens = 0
    for number, call in enumerate(distinct.values()):
        if number % UNITS_PER_STEP == 0:
            steps("costs", len(remaining) + number, len(remaining) + len(distinct))
        prompt_tokens += call.estimated_prompt_tokens
    completion_tokens = len(distinct) * template.expected_completion_tokens
    requests = len(distinct)
    if template.overall_pass is not None:
        # Every unit left asks its overall pass, a cached first answer too (that pass may be
        # cached as well, which is not known before the first answer is read): it repeats the
        # unit's prompt with the first answer's judgments.
        step = template.overall_pass
        overall = {p.call.hash: p.call for p in pending}
        requests += len(overall)
        prompt_tokens += sum(
            call.estimated_prompt_tokens + template.expected_completion_tokens
            for call in overall.values()
        )
        completion_tokens += len(overall) * step.expected_completion_tokens
    estimate = CostEstimate(
        requests=requests,
        cached=len(pending) - len(to_send),
        already_judged=len(calls) - len(remaining),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=price.cost(prompt_tokens, completion_tokens) if price else None,
        price=price,
        price_origin=prices.origin_for(settings.judge_model),
    )
    return JudgePlan(
        run_name=run_name,
        run_exists=judged_before,
        template=template,
        settings=settings,
        pending=pending,
        total_units=len(calls),
        already_judged=len(calls) - len(remaining),
        comparisons=work.comparisons,
        skipped=dict(work.skipped),
        model_ids=work.model_ids,
        price=price,
        estimate=estimate,
        replaces=0 if settings.use_cache else replaced,
        identical=len(to_send) - len(distinct),
        missing_images=len(losing),
        without_images=without,
    )


def _call(
    unit: WorkUnit, template: JudgeTemplate, model: str, parameters: dict[str, Any]
) -> JudgeCall:
    system, user = template.render(unit.case)
    return JudgeCall(
        model=model,
        system=system,
        user=user,
        temperature=parameters["temperature"],
        max_tokens=parameters["max_tokens"],
        images=unit.case.images,
        max_image_side=template.max_image_side,
    )


def _stored_key(
    unit: WorkUnit, call: JudgeCall, model_ids: dict[str, int]
) -> tuple[int, str, int, int | None]:
    """The key under which the run stores ``unit``'s verdicts (the verdicts' unique index
    without criterion and turn, which one unit's answer fills together)."""
    sides = stored_sides(unit)
    model_b = model_ids[sides.model_b] if sides.model_b is not None else None
    return (unit.item_id, call.hash, model_ids[sides.model_a], model_b)


# --- running -----------------------------------------------------------------------------------


@dataclass
class _Fetched:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    latency_ms: int | None
    from_cache: bool


@dataclass
class _UnitOutcome:
    rows: list[dict[str, Any]]
    cache_entries: list[tuple[str, CachedResponse]]
    from_cache: bool = False
    parse_failed: bool = False
    extracted: bool = False
    unresolved: bool = False


ProgressCallback = Callable[[JudgeProgress], None]


class JudgeRunner:
    """One session of a run: ``await run()`` judges the plan's pending requests; ``cancel()``
    (from a button, a signal handler, anything on the loop's thread) stops it cleanly."""

    def __init__(
        self,
        bundle_path: str | Path,
        plan: JudgePlan,
        api_key: Secret,
        *,
        on_progress: ProgressCallback | None = None,
        client: JudgeClient | None = None,
    ) -> None:
        self.bundle_path = bundle_path
        self.plan = plan
        self._api_key = api_key
        self._on_progress = on_progress
        self._client = client
        self._progress = JudgeProgress(total=len(plan.pending))
        #: how the run ended; set even when run() raises (an endpoint that refuses everything)
        self.summary: JudgeSummary | None = None
        self._cancel_requested = False
        self._tasks: list[asyncio.Task[None]] = []
        self._stop_reason: str | None = None
        self._status: RunStatus = "running"
        self._pending_writes: list[_UnitOutcome] = []
        self._known: dict[str, CachedResponse] = {
            p.call.hash: p.cached for p in plan.pending if p.cached is not None
        }
        self._inflight: dict[str, asyncio.Future[_Fetched | None]] = {}
        self._image_cache: dict[tuple[int, int], str] = {}
        self._consecutive_failures = 0
        self._started = 0.0
        self._run_id: int | None = None
        self._bundle: Bundle | None = None
        #: who holds the run's claim while this job judges it
        self._claimant = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._claim_renewed = 0.0

    # public API

    @property
    def progress(self) -> JudgeProgress:
        return self._progress

    def cancel(self) -> None:
        """Stop: no new request starts, requests in flight are abandoned, everything already
        answered is stored. Safe to call at any time, more than once."""
        self._cancel_requested = True
        for task in self._tasks:
            task.cancel()

    async def run(self) -> JudgeSummary:
        self._started = time.perf_counter()
        await asyncio.to_thread(prepare_runtime)
        self._bundle = await asyncio.to_thread(Bundle.open, self.bundle_path)
        client = self._client
        try:
            self._run_id = await asyncio.to_thread(self._open_run)
            if client is None:
                settings = self.plan.settings
                try:
                    client = await asyncio.to_thread(
                        partial(
                            JudgeClient,
                            base_url=settings.base_url,
                            api_key=self._api_key,
                            model=settings.judge_model,
                            concurrency=settings.concurrency,
                            retry=settings.retry,
                            budget=settings.budget,
                            price=self.plan.price,
                        )
                    )
                except BaseException:
                    self._status = "failed"  # the run is not left "running"
                    await asyncio.to_thread(self._close_run)
                    raise
            self._client = client
            return await self._run(client)
        finally:
            if client is not None:
                await client.aclose()
            await asyncio.to_thread(self._bundle.close)

    # internals

    async def _run(self, client: JudgeClient) -> JudgeSummary:
        log.info(
            "judge run '%s': %d requests (%d cached) with %s at %s, concurrency %d",
            self.plan.run_name,
            len(self.plan.pending),
            self.plan.estimate.cached,
            self.plan.settings.judge_model,
            public_base_url(self.plan.settings.base_url),
            self.plan.settings.concurrency,
        )
        queue: asyncio.Queue[PlannedUnit] = asyncio.Queue()
        for planned in self.plan.pending:
            queue.put_nowait(planned)
        flush_stop = asyncio.Event()
        flusher = asyncio.create_task(self._flush_periodically(flush_stop))
        workers = max(1, min(self.plan.settings.concurrency, len(self.plan.pending)))
        self._tasks = [
            asyncio.create_task(self._worker(queue, client, index * RAMP_UP_STEP))
            for index in range(workers)
        ]
        if self._cancel_requested:
            self.cancel()
        self._report()
        error: BaseException | None = None
        try:
            await asyncio.wait(self._tasks, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError as cancelled:  # the caller cancelled run() itself
            error = cancelled
            self._cancel_requested = True
        finally:
            for task in self._tasks:
                task.cancel()
            results = await asyncio.gather(*self._tasks, return_exceptions=True)
            flush_stop.set()
            # whatever went wrong, the run is closed below: it never stays "running"
            stored: list[BaseException | None] = list(
                await asyncio.gather(flusher, return_exceptions=True)
            )
            try:
                await self._flush()
            except Exception as failure:
                stored.append(failure)
        failures = [
            r
            for r in [*results, *stored]
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)
        ]
        endpoint = next((f for f in failures if isinstance(f, EndpointError)), None)
        if endpoint is not None:
            self._status, self._stop_reason = "failed", str(endpoint)
            error = error or endpoint
        elif failures:  # a bug: what is done is stored, then it surfaces
            self._status, self._stop_reason = "failed", redact(repr(failures[0]))
            error = error or failures[0]
        elif self._cancel_requested:
            self._status, self._stop_reason = "cancelled", "cancelled"
        progress = self._progress
        if self._status == "running" and progress.failed and not progress.done:
            # Nothing was answered: the run failed, whatever stopped it (a budget counts
            # failed requests too), and it says where it tried.
            self._status = "failed"
            self._stop_reason = (
                f"every request to {public_base_url(self.plan.settings.base_url)} failed: "
                f"{progress.describe_failures()}"
            )
        if self._status == "running":
            if self._stop_reason is not None:
                self._status = "budget_exhausted"
            elif progress.failed:
                self._status = "incomplete"
            else:
                self._status = "completed"
        compared, flips = await asyncio.to_thread(self._close_run)
        self._report()
        summary = JudgeSummary(
            self.plan.run_name,
            self._status,
            self.plan.already_judged,
            self._progress,
            compared,
            flips,
            self._stop_reason,
        )
        self.summary = summary
        log.info("judge run '%s' ended: %s", self.plan.run_name, summary.as_dict())
        if error is not None:
            raise error
        return summary

    async def _worker(
        self, queue: asyncio.Queue[PlannedUnit], client: JudgeClient, delay: float
    ) -> None:
        failure_limit = max(10, 2 * self.plan.settings.concurrency)
        await asyncio.sleep(delay)
        while self._stop_reason is None:
            try:
                planned = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                outcome = await self._judge(planned, client)
            except BudgetExhausted as exhausted:
                self._stop_reason = str(exhausted)
                return
            except (RequestFailed, AnswerNotUsable) as failure:
                reason = failure.reason if isinstance(failure, RequestFailed) else "unreadable"
                self._progress.note_failure(reason, str(failure))
                self._consecutive_failures += 1
                log.warning("judge request for %s failed: %s", describe_unit(planned.unit), failure)
                if self._consecutive_failures >= failure_limit:
                    raise EndpointError(
                        f"{self._consecutive_failures} judge requests failed in a row; "
                        f"the last: {failure}"
                    ) from None
                self._report()
                continue
            self._consecutive_failures = 0
            self._record(outcome)

    def _record(self, outcome: _UnitOutcome) -> None:
        progress = self._progress
        progress.done += 1
        progress.verdicts += len(outcome.rows)
        progress.cached += outcome.from_cache
        progress.parse_failures += outcome.parse_failed
        progress.extracted += outcome.extracted
        progress.unresolved += outcome.unresolved
        self._pending_writes.append(outcome)
        self._report()

    def _report(self) -> None:
        progress = self._progress
        if self._client is not None:
            counters = self._client.counters
            progress.retries = counters.retries
            progress.prompt_tokens = counters.prompt_tokens
            progress.completion_tokens = counters.completion_tokens
            progress.cost_usd = counters.cost_usd if self.plan.price is not None else None
        progress.elapsed = time.perf_counter() - self._started
        if self._on_progress is not None:
            self._on_progress(progress)

    async def _judge(self, planned: PlannedUnit, client: JudgeClient) -> _UnitOutcome:
        """The verdicts of one unit. An answer that breaks the reading of it (a parser's bug
        meeting text nobody foresaw) is a failed request, logged with its traceback, so that
        one answer cannot end a run whose other answers are paid for."""
        try:
            return await self._judge_unit(planned, client)
        except (asyncio.CancelledError, BudgetExhausted, EndpointError, RequestFailed):
            raise
        except Exception as error:
            log.exception("the answer for %s could not be read", describe_unit(planned.unit))
            raise AnswerNotUsable(redact(f"{type(error).__name__}: {error}")) from None

    async def _judge_unit(self, planned: PlannedUnit, client: JudgeClient) -> _UnitOutcome:
        template = self.plan.template
        unit = planned.unit
        # the plan looked the main request up in the cache already
        fetched = await self._fetch(
            planned.call, client, template.expected_completion_tokens, look_up=False
        )
        #: every answer this unit paid for or read, with its request's hash (main one first)
        answers: list[tuple[str, _Fetched]] = [(planned.call.hash, fetched)]
        try:
            parsed = template.parse(fetched.text)
            expected = template.expected_slots(unit.shown_turns, unit.judged_turn)
            found = parsed.verdicts
            if template.overall_pass is not None:
                # the whole item's verdicts are the overall pass's, even if this answer has some
                whole = set(template.overall_slots())
                found = tuple(v for v in found if v.slot not in whole)
            missing = _missing(expected, found)
            follow_up = await self._extract(
                template.extraction, fetched.text, missing, planned.call, client, answers
            )
            resolution = resolve(template, expected, found, parsed.problems, follow_up)
            overall_missing: list[Slot] = []
            if template.overall_pass is not None:
                overall_missing = await self._overall_pass(
                    template, planned, fetched.text, resolution, client, answers
                )
        except BaseException:
            # The unit is not finished, but the answers it has are paid for: cache them, so
            # that the run that finishes the unit does not pay again.
            paid = [(digest, _as_cached(a)) for digest, a in answers if not a.from_cache]
            if paid:
                self._pending_writes.append(_UnitOutcome([], paid))
            raise
        parts = [answer for _, answer in answers]
        record = CallRecord(
            request_hash=planned.call.hash,
            raw_text=fetched.text,
            prompt_tokens=_total(parts, "prompt_tokens"),
            completion_tokens=_total(parts, "completion_tokens"),
            cost_usd=_total(parts, "cost_usd"),
            latency_ms=_total(parts, "latency_ms"),
        )
        assert self._run_id is not None
        rows = verdict_rows(unit, template, resolution, record, self._run_id, self.plan.model_ids)
        entries = [(digest, _as_cached(a)) for digest, a in answers if not a.from_cache]
        return _UnitOutcome(
            rows=rows,
            cache_entries=entries,
            from_cache=fetched.from_cache,
            parse_failed=bool(missing or overall_missing),
            extracted=bool(resolution.extracted),
            unresolved=bool(resolution.unresolved),
        )

    async def _extract(
        self,
        step: ExtractionStep | None,
        text: str,
        missing: list[Slot],
        main: JudgeCall,
        client: JudgeClient,
        answers: list[tuple[str, _Fetched]],
    ) -> list[ParsedVerdict]:
        """The verdicts of ``missing`` slots that ``step``'s follow-up reads out of ``text``."""
        if not missing or step is None:
            return []
        system, user = step.render(text)
        call = JudgeCall(
            model=main.model, system=system, user=user, temperature=0.0, max_tokens=step.max_tokens
        )
        answer = await self._fetch(call, client, step.max_tokens, look_up=True)
        answers.append((call.hash, answer))
        return _fill(missing, step.parse(answer.text).verdicts)

    async def _overall_pass(
        self,
        template: JudgeTemplate,
        planned: PlannedUnit,
        text: str,
        resolution: Resolution,
        client: JudgeClient,
        answers: list[tuple[str, _Fetched]],
    ) -> list[Slot]:
        """Ask the overall pass for the whole item's verdicts, feeding it the per-turn
        judgments J1..Jn of ``text`` (the first answer), and add them to ``resolution``, each
        with the pass's own answer as its raw text. Returns the slots its answer did not
        give (before its extraction step)."""
        step = template.overall_pass
        assert step is not None
        unit, main = planned.unit, planned.call
        slots = template.overall_slots()
        readable = [
            v
            for v in resolution.verdicts
            if v.turn_index is not None and (v.outcome is not None or v.score is not None)
        ]
        if not readable:
            # nothing to feed it: the whole item's verdicts are as unreadable as the turns'
            _merge(resolution, resolve(template, slots, (), ["no turn judgment to build on"]))
            return slots
        system, user = step.render(unit.case, turn_judgments_text(text, readable, unit.shown_turns))
        call = JudgeCall(
            model=main.model,
            system=system,
            user=user,
            temperature=main.temperature,
            max_tokens=step.max_tokens,
            images=main.images,
            max_image_side=main.max_image_side,
        )
        answer = await self._fetch(call, client, step.expected_completion_tokens, look_up=True)
        answers.append((call.hash, answer))
        parsed = step.parse(answer.text)
        found = tuple(v for v in parsed.verdicts if v.slot in set(slots))
        missing = _missing(slots, found)
        follow_up = await self._extract(
            step.extraction, answer.text, missing, main, client, answers
        )
        whole = resolve(template, slots, found, parsed.problems, follow_up)
        for slot in slots:
            resolution.raw_texts[slot] = answer.text
            resolution.metadata[slot] = {OVERALL_PASS_KEY: call.hash}
        _merge(resolution, whole)
        return missing

    async def _fetch(
        self, call: JudgeCall, client: JudgeClient, completion: int, *, look_up: bool
    ) -> _Fetched:
        """The answer to ``call``: from the cache, from an identical request in flight, or from
        the endpoint."""
        digest = call.hash
        use_cache = self.plan.settings.use_cache
        known = self._known.get(digest)
        if known is None and use_cache and look_up and digest not in self._inflight:
            known = await asyncio.to_thread(self._lookup, digest)
        if known is not None and use_cache:
            return _Fetched(
                known.text, known.prompt_tokens, known.completion_tokens, 0.0, None, True
            )
        waiting = self._inflight.get(digest)
        if waiting is not None:
            shared = await asyncio.shield(waiting)
            if shared is not None:
                return _Fetched(
                    shared.text, shared.prompt_tokens, shared.completion_tokens, 0.0, None, True
                )
        future: asyncio.Future[_Fetched | None] = asyncio.get_running_loop().create_future()
        self._inflight[digest] = future
        try:
            urls: list[str] = []
            if call.images:
                urls = await asyncio.to_thread(self._image_urls, call)
            reply = await client.complete(
                call.messages(urls),
                temperature=call.temperature,
                max_tokens=call.max_tokens,
                estimated_prompt_tokens=call.estimated_prompt_tokens,
                estimated_completion_tokens=completion,
            )
        except BaseException:
            future.set_result(None)  # anyone waiting makes the request itself
            raise
        finally:
            self._inflight.pop(digest, None)
        fetched = _Fetched(
            reply.text,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.cost_usd,
            reply.latency_ms,
            False,
        )
        self._known[digest] = _as_cached(fetched)
        future.set_result(fetched)
        return fetched

    # --- bundle access (in worker threads) -----------------------------------------------------

    def _lookup(self, digest: str) -> CachedResponse | None:
        assert self._bundle is not None
        with self._bundle.read_session() as session:
            return cache.lookup(session, [digest]).get(digest)

    def _image_urls(self, call: JudgeCall) -> list[str]:
        assert self._bundle is not None
        wanted = [
            i.image_id
            for i in call.images
            if (i.image_id, call.max_image_side) not in self._image_cache
        ]
        if wanted:
            with self._bundle.read_session() as session:
                for image_id, data in session.execute(
                    select(Image.id, Image.data).where(Image.id.in_(wanted))
                ):
                    # a handful of images repeat across a run (both orders, every model)
                    if len(self._image_cache) > 64:
                        self._image_cache.pop(next(iter(self._image_cache)))
                    self._image_cache[(image_id, call.max_image_side)] = data_url(
                        data, call.max_image_side
                    )
        return [self._image_cache[(i.image_id, call.max_image_side)] for i in call.images]

    def _open_run(self) -> int:
        """Create or reopen the run and claim it. Two processes creating the same new run at
        once on a server (where the run's row cannot be locked before it exists): the second
        insert fails on the run's unique name, and the second attempt finds the first's claim."""
        try:
            return self._open_and_claim_run()
        except IntegrityError:
            return self._open_and_claim_run()

    def _open_and_claim_run(self) -> int:
        assert self._bundle is not None
        plan, settings = self.plan, self.plan.settings
        parameters = {
            **_parameters(settings, plan.template),
            "selection": settings.selection.as_dict(),
            # the coordinate every judgment carries (the read model reads it here): which
            # outputs were judged, the standard ones or an ablation's
            "context": settings.selection.context,
            "limit": settings.selection.limit,
            "concurrency": settings.concurrency,
            "use_cache": settings.use_cache,
            # provenance: verdicts of items whose images were missing were read from text
            "text_only": settings.text_only,
            "retry": asdict(settings.retry),
        }
        with self._bundle.session() as session:
            run = session.scalar(
                select(JudgeRun).where(JudgeRun.name == plan.run_name).with_for_update()
            )
            now = utcnow()
            if (
                run is not None
                and run.claimed_by is not None
                and _claim_held(run.claimed_by, run.claim_expires_at, now)
            ):
                raise RunBusyError(
                    f"run '{plan.run_name}' is being judged by another process "
                    f"({run.claimed_by.rsplit(':', 1)[0]}); nothing was sent. Run the command "
                    "again when it has ended: it resumes with what is left"
                )
            if run is None:
                run = JudgeRun(
                    name=plan.run_name,
                    template_name=plan.template.name,
                    template_version=plan.template.version,
                    template_text=plan.template.as_text(),
                    judge_model=settings.judge_model,
                )
                session.add(run)
            run.base_url = public_base_url(settings.base_url)
            # the run's verdicts are counted under its context: kept counts move if it does
            with changing_run_context(session, run, parameters):
                run.parameters = parameters
            run.budget = settings.budget.as_dict()
            run.status = "running"
            run.finished_at = None
            run.claimed_by = self._claimant
            run.claim_expires_at = now + timedelta(seconds=CLAIM_SECONDS)
            session.flush()
            # the answers about to be sent, checked by the importer's model-name rule
            sent = {
                (planned.unit.item_id, plan.model_ids[name])
                for planned in plan.pending
                for side in (planned.unit.side_a, planned.unit.side_b)
                if (name := side_name(side)) is not None and name in plan.model_ids
            }
            flagged = flag_sent_answers(session, plan.run_name, sent, settings.selection.context)
            if flagged:
                log.info(
                    "judge run '%s': %d answers name their model (flagged)", plan.run_name, flagged
                )
            self._claim_renewed = time.monotonic()
            return run.id

    def _renew_claim(self) -> None:
        assert self._bundle is not None and self._run_id is not None
        with self._bundle.session() as session:
            run = session.get(JudgeRun, self._run_id)
            if run is not None and run.claimed_by == self._claimant:
                run.claim_expires_at = utcnow() + timedelta(seconds=CLAIM_SECONDS)
        self._claim_renewed = time.monotonic()

    async def _flush_periodically(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), FLUSH_INTERVAL)
            await self._flush()
            if time.monotonic() - self._claim_renewed >= CLAIM_RENEWAL:
                await asyncio.to_thread(self._renew_claim)

    async def _flush(self) -> None:
        batch, self._pending_writes = self._pending_writes, []
        if not batch:
            return
        try:
            await asyncio.to_thread(self._write, batch)
        except SQLAlchemyError as error:
            if len(batch) == 1:
                self._unstored(batch[0], error)
                return
            # one bad row must not lose the batch's other answers: each on its own
            for outcome in batch:
                try:
                    await asyncio.to_thread(self._write, [outcome])
                except SQLAlchemyError as single:
                    self._unstored(outcome, single)

    def _unstored(self, outcome: _UnitOutcome, error: BaseException) -> None:
        """An answer the bundle refused: counted as a failed request instead of its verdicts."""
        log.error("a judge answer could not be stored", exc_info=error)
        progress = self._progress
        progress.verdicts -= len(outcome.rows)
        if outcome.rows:  # a cache entry alone is no unit of its own
            progress.done -= 1
            cause = getattr(error, "orig", None) or type(error).__name__  # not the SQL dump
            progress.note_failure("not stored", f"the bundle refused the answer: {cause}")
        self._report()

    def _write(self, batch: list[_UnitOutcome]) -> None:
        assert self._bundle is not None
        rows = [row for outcome in batch for row in outcome.rows]
        entries = [entry for outcome in batch for entry in outcome.cache_entries]
        with self._bundle.session() as session:
            cache.store(session, entries, replace=not self.plan.settings.use_cache)
            with counting_verdicts(session, rows):
                if rows and self.plan.replaces:
                    _delete_earlier_verdicts(session, rows)
                if rows:
                    # a verdict stored already (by a process whose claim ran out) is kept once
                    session.execute(insert_ignoring_conflicts(session, JudgeVerdict), rows)

    def _close_run(self) -> tuple[int, int]:
        assert self._bundle is not None and self._run_id is not None
        with self._bundle.session() as session:
            compared, flips = mark_position_flips(session, self._run_id)
            run = session.get(JudgeRun, self._run_id)
            assert run is not None
            run.status = self._status
            run.finished_at = datetime.now(UTC)
            if run.claimed_by == self._claimant:
                run.claimed_by = run.claim_expires_at = None
        return compared, flips


def _claim_held(claimed_by: str | None, expires_at: datetime | None, now: datetime) -> bool:
    """Whether another job holds a run's claim: until it expires, unless its process (on this
    host) is gone, as after a kill, so that the next run resumes at once."""
    if claimed_by is None or expires_at is None or expires_at.replace(tzinfo=UTC) <= now:
        return False
    host, _, rest = claimed_by.partition(":")
    pid_text = rest.split(":", 1)[0]
    if host == socket.gethostname() and pid_text.isdigit():
        pid = int(pid_text)
        if pid == os.getpid():
            return True  # another job of this process (the GUI run twice)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # alive, owned by someone else
            return True
    return True


def _delete_earlier_verdicts(session: Any, rows: list[dict[str, Any]]) -> None:
    """Remove the run's earlier verdicts of the items' requests ``rows`` answer again."""
    keys = {
        (row["run_id"], row["item_id"], row["request_hash"], row["model_a_id"], row["model_b_id"])
        for row in rows
    }
    for run_id, item_id, digest, model_a, model_b in keys:
        session.execute(
            delete(JudgeVerdict).where(
                JudgeVerdict.run_id == run_id,
                JudgeVerdict.item_id == item_id,
                JudgeVerdict.request_hash == digest,
                JudgeVerdict.model_a_id == model_a,
                JudgeVerdict.model_b_id.is_(None)
                if model_b is None
                else JudgeVerdict.model_b_id == model_b,
            )
        )


#: held while the HTTP stack is imported: the one import of it in the process
_runtime_lock = threading.Lock()
_runtime_ready = False


def prepare_runtime() -> None:
    """Import the HTTP stack, once per process, on the first thread that asks; a thread that
    asks meanwhile waits for that import instead of starting its own. Every run does this
    first, in a worker thread.

    Two threads importing openai (and pydantic under it) at once fail now and then with a
    circular-import error, since each finds the other's half-initialised modules: the GUI
    prepares at start-up while a judge run started early prepares too, and the CLI prepares
    while it plans the run that prepares again.

    The import takes about a second, and parts of it (the openai package's compiled schemas)
    hold the interpreter lock for up to ~100 ms, so even in a thread the first run of a process
    would stall its event loop that long: a GUI calls this once at start-up, in a worker
    thread, before anyone is looking. A full garbage collection over everything loaded would
    stall the loop the same way; in the GUI those wait for an idle user
    (workbench/gui/collector.py), and a CLI run of thousands of requests starts none
    (bench/judge_throughput.py counts them).
    """
    global _runtime_ready
    if _runtime_ready:
        return
    with _runtime_lock:
        if not _runtime_ready:
            _import_http_stack()
            _runtime_ready = True


def _import_http_stack() -> None:
    importlib.import_module("openai")
    importlib.import_module("openai.types.chat")


def _fill(missing: list[Slot], verdicts: tuple[ParsedVerdict, ...]) -> list[ParsedVerdict]:
    """The follow-up's verdicts moved to the slots that were missing: a verdict of the same
    slot (a follow-up that restates one line per turn), else one of the same criterion given
    without a turn (a follow-up that answers about "the" verdict)."""
    filled = []
    for slot in missing:
        match = next((v for v in verdicts if v.slot == slot), None) or next(
            (v for v in verdicts if v.criterion == slot[0] and v.turn_index is None), None
        )
        if match is not None:
            filled.append(
                ParsedVerdict(
                    slot[0], slot[1], match.outcome, match.strength, match.label, match.score
                )
            )
    return filled


def _total(parts: list[_Fetched], name: str) -> Any:
    """The sum of one cost field over a unit's answers, None only when none of them has it."""
    values = [getattr(part, name) for part in parts if getattr(part, name) is not None]
    return sum(values) if values else None


def _missing(expected: list[Slot], found: tuple[ParsedVerdict, ...]) -> list[Slot]:
    have = {verdict.slot for verdict in found}
    return [slot for slot in expected if slot not in have]


def _merge(resolution: Resolution, more: Resolution) -> None:
    resolution.verdicts += more.verdicts
    resolution.extracted |= more.extracted
    resolution.unresolved |= more.unresolved
    resolution.problems += [p for p in more.problems if p not in resolution.problems]


def _as_cached(fetched: _Fetched) -> CachedResponse:
    return CachedResponse(fetched.text, fetched.prompt_tokens or 0, fetched.completion_tokens or 0)


def describe_unit(unit: WorkUnit) -> str:
    """``source:id turn t: A vs B`` for logs and messages."""
    turn = f" turn {unit.judged_turn}" if unit.judged_turn is not None else ""
    sides = str(side_name(unit.side_a)) + (
        f" vs {side_name(unit.side_b)}" if unit.side_b is not None else ""
    )
    return f"{unit.case.source}:{unit.case.external_id}{turn}: {sides}"
