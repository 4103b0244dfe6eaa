"""A judge plan in words: what will be sent, what is reused, what is left out and what it will
cost against the run's limits. The CLI prints these lines and the dialog shows them, so the two
cannot disagree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.judge.limits import describe_limits, over_limits

if TYPE_CHECKING:
    from workbench.services.judging.runner import JudgePlan


def money(value: float | None) -> str:
    return "unknown (no price for this model: give one)" if value is None else f"${value:.4f}"


def plan_lines(plan: JudgePlan) -> list[str]:
    estimate = plan.estimate
    lines = [
        f"run '{plan.run_name}'" + (" (resumes an earlier run)" if plan.run_exists else ""),
        f"{plan.comparisons:,} comparisons, {plan.total_units:,} requests: "
        f"{estimate.already_judged:,} judged before, {estimate.cached:,} in the cache, "
        f"{estimate.requests:,} to send",
    ]
    if plan.template.overall_pass is not None:
        lines.append(
            "each request is followed by a second, the overall judgment fed the turns' "
            "judgments (counted in 'to send')"
        )
    if plan.identical:
        lines.append(
            f"{plan.identical:,} identical requests are sent once "
            "(the same prompt for two comparisons: one answer serves both)"
        )
    if plan.replaces:
        lines.append(f"{plan.replaces:,} verdicts judged before are asked again and replaced")
    if plan.missing_images:
        lines.append(
            f"{plan.missing_images:,} requests lose an image (their items' images are missing)"
            + (
                f", {plan.without_images:,} of them sent as text only"
                if plan.without_images
                else ""
            )
        )
    lines += [
        f"skipped {count:,} comparisons: {why}" for why, count in sorted(plan.skipped.items())
    ]
    lines.append(
        f"estimate: {estimate.prompt_tokens:,} prompt + {estimate.completion_tokens:,} "
        f"completion tokens, {money(estimate.cost_usd)}"
    )
    if estimate.price is not None and estimate.price_origin is not None:
        lines.append(
            f"price: ${estimate.price.input_per_million:g} input, "
            f"${estimate.price.output_per_million:g} output per million tokens "
            f"({estimate.price_origin.describe()})"
        )
    budget = plan.settings.budget
    lines.append(f"limits: {describe_limits(budget)} (the run stops before exceeding them)")
    return lines


def plan_over_limits(plan: JudgePlan) -> list[str]:
    """How the plan's estimate goes beyond its run's limits (empty when within them)."""
    estimate = plan.estimate
    return over_limits(
        plan.settings.budget,
        estimate.requests,
        estimate.prompt_tokens + estimate.completion_tokens,
        estimate.cost_usd,
    )


def confirmation_text(plan: JudgePlan) -> str:
    """The question asked before a run whose estimate is beyond its limits."""
    return (
        "This run has "
        + " and ".join(plan_over_limits(plan))
        + ". It will stop when it reaches a limit; raise the limits to judge everything."
    )
