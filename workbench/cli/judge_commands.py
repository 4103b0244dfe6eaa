"""``workbench judge`` (run an LLM judge over a bundle's pairs at an OpenAI-compatible endpoint)
and ``workbench judge-templates`` (the judge prompts the installed plugins offer)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import threading
from typing import Any

from workbench.cli.progress import TerminalProgress
from workbench.errors import WorkbenchError
from workbench.judge.client import EndpointError, RetryPolicy
from workbench.judge.cost import default_prices, load_prices, parse_price
from workbench.judge.last_used import (
    LOCAL_EXAMPLE,
    REMEMBERED_PRICE,
    load_last_used,
    remember_endpoint,
    remembered,
)
from workbench.judge.limits import run_budget
from workbench.judge.secrets import resolve_api_key
from workbench.judge.simulated import SIMULATED_MODEL, SimulatedResponder
from workbench.judge.simulated_endpoint import SimulatedJudgeServer
from workbench.plugins import UnknownJudgeTemplateError, registry
from workbench.services.judging.plan_text import confirmation_text, plan_lines, plan_over_limits
from workbench.services.judging.runner import JudgeRunner, JudgeSettings, plan_run, prepare_runtime
from workbench.services.judging.worklist import JudgeScope

#: requests at once when none is given and none is remembered for the endpoint
DEFAULT_CONCURRENCY = 8


def _endpoint_and_model(args: argparse.Namespace) -> tuple[str, str]:
    """``--base-url`` and ``--model``, or the last ones used. No endpoint is assumed: a hosted
    (paid) one is used only when the user names it."""

    last = load_last_used()
    base_url = args.base_url or last.base_url
    model = args.model or remembered(base_url).model or last.model
    if not model:
        raise WorkbenchError("give the judge model with --model (it is remembered for next time)")
    if not base_url:
        if args.dry_run:
            return "", model  # an estimate sends nothing
        raise WorkbenchError(
            f"give the judge endpoint with --base-url, e.g. {LOCAL_EXAMPLE} for a local server "
            "or https://api.openai.com/v1 (it is remembered for next time)"
        )
    return base_url, model


def _settings(args: argparse.Namespace, prices: Any) -> Any:
    for name in ("concurrency", "attempts"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise WorkbenchError(f"--{name} must be at least 1")
    for name in ("max_requests", "max_cost", "max_total_tokens"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise WorkbenchError(f"--{name.replace('_', '-')} cannot be negative (0: no limit)")
    base_url, model = _endpoint_and_model(args)
    models = None
    if args.models and args.models.strip() != "all":
        models = tuple(part.strip() for part in args.models.split(",") if part.strip())
    return JudgeSettings(
        base_url=base_url,
        judge_model=model,
        template=args.template,
        selection=JudgeScope(
            campaign=args.campaign,
            models=models,
            items=args.items,
            anchor=args.anchor,
            context=args.context,
            swap=args.swap if args.swap is not None else _swaps_by_default(args.template),
            limit=args.limit,
            matchups_of=args.matchups_of,
        ),
        concurrency=args.concurrency or remembered(base_url).concurrency or DEFAULT_CONCURRENCY,
        budget=run_budget(
            args.max_requests, args.max_cost, args.max_total_tokens, prices.for_model(model)
        ),
        retry=RetryPolicy(max_attempts=args.attempts, timeout=args.timeout),
        temperature=args.temperature,
        max_tokens=args.max_output_tokens,
        run_name=args.run,
        use_cache=not args.no_cache,
        text_only=args.text_only,
    )


def _swaps_by_default(template_name: str) -> bool:
    try:
        return registry().judge_template(template_name).swaps_by_default
    except UnknownJudgeTemplateError:
        return True  # the run's planning names the unknown template


def _prices(args: argparse.Namespace) -> Any:
    prices = default_prices()
    if args.prices:
        prices = load_prices(args.prices, prices)
    last = load_last_used()
    memory = remembered(args.base_url or last.base_url)
    model = args.model or memory.model or last.model
    if args.price:
        if model:
            prices = prices.with_price(model, parse_price(args.price), "--price")
    elif model and memory.price is not None and model == memory.model and not args.prices:
        # the price the user gave for this endpoint's model last time
        prices = prices.with_price(model, memory.price, REMEMBERED_PRICE)
    return prices


def _user_price(prices: Any, model: str) -> Any:
    """The price the user gave for ``model`` (to remember with the endpoint), or None when it
    is the price list's: a listed price is read from the list, which may be updated, each time."""
    origin = prices.origin_for(model)
    return prices.for_model(model) if origin is not None and origin.by_user else None


def _money(value: float | None) -> str:
    return "unknown (no price for this model; pass --price)" if value is None else f"${value:.4f}"


def _print_estimate(plan: Any, stream: Any) -> None:
    first, *rest = plan_lines(plan)
    print(first, file=stream)
    for line in rest:
        print(f"  {line}", file=stream)
    over = plan_over_limits(plan)
    if over:
        print(f"  above the limits: {'; '.join(over)}", file=stream)


def _confirm(plan: Any, args: argparse.Namespace) -> None:
    """Ask before a run whose estimate is above its limits; refuse when no one can answer."""

    if args.yes or not plan_over_limits(plan):
        return
    question = confirmation_text(plan)
    if not sys.stdin.isatty():
        raise WorkbenchError(
            f"{question} Pass --yes to start anyway, or raise --max-requests / --max-cost "
            "(0: no limit)"
        )
    print(question, file=sys.stderr)
    answer = input("Start anyway? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise WorkbenchError("not started: nothing was sent")


#: what a verdict left unreadable after the extraction step becomes, by the template's rule
#: (``JudgeTemplate.unparsed``), as the run's summary says it
UNPARSED_BECOMES = {
    "tie": "counted as ties",
    "missing": "kept without an outcome, on no board (the template's rule)",
}


def _print_summary(summary: Any, unparsed: str) -> None:
    p = summary.progress
    print(f"run '{summary.run_name}': {summary.status} in {p.elapsed:.1f} s")
    if summary.stop_reason and summary.status != "cancelled":
        print(f"  stopped: {summary.stop_reason}")
    print(
        f"  requests        {p.done + p.failed} of {p.total} "
        f"({p.cached} from the cache; {summary.already_judged} judged before)"
    )
    print(f"  verdicts        {p.verdicts}")
    print(
        f"  parse failures  {p.parse_failures} ({p.extracted} resolved by the extraction "
        f"follow-up, {p.unresolved} stored flagged"
        + (f": {UNPARSED_BECOMES[unparsed]})" if p.unresolved else ")")
    )
    print(f"  failed          {p.failed}")
    if p.failed:
        print(f"    why           {p.describe_failures()}")
    print(f"  retries         {p.retries}")
    print(f"  tokens          {p.prompt_tokens:,} prompt + {p.completion_tokens:,} completion")
    print(f"  cost            {_money(p.cost_usd)}")
    print(f"  wall time       {p.elapsed:.1f} s")
    print(
        f"  position flips  {summary.position_flips} of {summary.compared_in_both_orders} "
        "comparisons judged in both orders"
    )


async def _run_job(job: Any) -> Any:
    loop = asyncio.get_running_loop()
    # Ctrl+C stops the run cleanly (what is answered is stored) and still prints the counts.
    # Where signal handlers cannot be set (Windows), KeyboardInterrupt cancels the run instead.
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, job.cancel)
    try:
        return await job.run()
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


def _simulated_server(seed: int = 0, port: int = 0) -> Any:
    responder = SimulatedResponder(tuple(registry().judge_templates()), seed)
    return SimulatedJudgeServer(responder, port)


def run_simulated_judge(args: argparse.Namespace) -> int:
    try:
        server = _simulated_server(args.seed, args.port)
    except OSError as error:
        print(
            f"workbench: cannot listen on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr
        )
        return 1
    print(
        f"simulated judge at {server.base_url} (model {SIMULATED_MODEL}); its verdicts are "
        "drawn at random and say nothing about the answers. Ctrl+C stops it.",
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    server.server_close()
    return 0


def run_judge(args: argparse.Namespace) -> int:
    if getattr(args, "simulated", False):
        return _run_simulated(args)
    return _run_judge(args, remember=True)


def _run_simulated(args: argparse.Namespace) -> int:
    """The run against a simulated judge served for it on loopback; the endpoint (a fresh
    port) is not remembered as the last one used."""

    if args.base_url or args.model:
        raise WorkbenchError(
            "--simulated runs against the built-in simulated judge: leave out --base-url and "
            "--model"
        )
    with _simulated_server() as server:
        simulated = argparse.Namespace(
            **{**vars(args), "base_url": server.base_url, "model": SIMULATED_MODEL},
        )
        simulated.price = args.price or "0,0"
        print(
            f"workbench: judging with the simulated judge at {server.base_url}: verdicts drawn "
            "at random, for trying the judge, never a measurement",
            file=sys.stderr,
        )
        return _run_judge(simulated, remember=False)


def _run_judge(args: argparse.Namespace, *, remember: bool) -> int:
    def prepare() -> None:
        with contextlib.suppress(Exception):  # the run prepares again and reports a failure
            prepare_runtime()

    if not args.dry_run:  # the HTTP stack's import (about a second) overlaps with planning
        threading.Thread(target=prepare, name="judge-runtime", daemon=True).start()
    prices = _prices(args)
    settings = _settings(args, prices)
    planning = TerminalProgress(stream=sys.stderr)
    try:
        plan = plan_run(args.bundle, settings, prices=prices, progress=planning)
    finally:
        planning.finish()
    if args.dry_run:
        if args.json:
            print(json.dumps(plan.as_dict(), indent=2))
        else:
            _print_estimate(plan, sys.stdout)
        return 0
    key = resolve_api_key(settings.base_url, args.api_key_env)
    for note in key.notes:
        print(f"workbench: {note}", file=sys.stderr)
    _print_estimate(plan, sys.stderr)
    _confirm(plan, args)
    if remember:
        remember_endpoint(
            settings.base_url,
            settings.judge_model,
            _user_price(prices, settings.judge_model),
            settings.concurrency,
        )
    progress = TerminalProgress(stream=sys.stderr)
    job = JudgeRunner(
        args.bundle,
        plan,
        key.secret,
        on_progress=lambda p: progress("judging", p.done + p.failed, p.total),
    )

    try:
        summary = asyncio.run(_run_job(job))
    except EndpointError as stopped:
        # the run ended early: its counts and reasons are shown, then why it stopped
        progress.finish()
        if job.summary is None:
            raise
        summary = job.summary
        if args.json:
            print(json.dumps({**summary.as_dict(), "estimate": plan.estimate.as_dict()}, indent=2))
        else:
            _print_summary(summary, plan.template.unparsed)
        print(f"workbench: {stopped}", file=sys.stderr)
        return 1
    finally:
        progress.finish()
    if args.json:
        print(json.dumps({**summary.as_dict(), "estimate": plan.estimate.as_dict()}, indent=2))
    else:
        _print_summary(summary, plan.template.unparsed)
    if summary.status == "cancelled":
        return 130
    # a request that failed is work not done, whatever else stopped the run (run again)
    ok = summary.status in ("completed", "budget_exhausted") and not summary.progress.failed
    return 0 if ok else 1
