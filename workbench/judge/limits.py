"""A judge run's default limits, and whether a plan goes beyond its limits.

Every run starts with limits: at most 1,000 requests and, when the judge model's price is known,
$5. A run stops before it would exceed them, and a plan whose estimate is above them asks for
confirmation first (the dialog's question, the CLI's prompt or ``--yes``), so that no run turns
out costly by surprise. Zero means no limit.
"""

from __future__ import annotations

from workbench.judge.client import Budget
from workbench.judge.cost import Price

DEFAULT_MAX_REQUESTS = 1000
DEFAULT_MAX_COST = 5.0


def run_budget(
    max_requests: int | None,
    max_cost: float | None,
    max_tokens: int | None,
    price: Price | None,
) -> Budget:
    """The budget of a run from what the user gave (None: the default; 0: no limit). The default
    cost limit applies only when the model's price is known: a local model has none to keep."""
    requests = DEFAULT_MAX_REQUESTS if max_requests is None else max_requests
    cost = (DEFAULT_MAX_COST if price is not None else None) if max_cost is None else max_cost
    return Budget(
        max_requests=requests or None,
        max_tokens=max_tokens or None,
        max_cost=cost or None,
    )


def over_limits(budget: Budget, requests: int, tokens: int, cost_usd: float | None) -> list[str]:
    """How an estimate goes beyond ``budget``, one phrase per limit (empty when within)."""
    found = []
    if budget.max_requests is not None and requests > budget.max_requests:
        found.append(f"{requests:,} requests to send, above the limit of {budget.max_requests:,}")
    if budget.max_cost is not None and cost_usd is not None and cost_usd > budget.max_cost:
        found.append(f"an estimated ${cost_usd:.2f}, above the limit of ${budget.max_cost:.2f}")
    if budget.max_tokens is not None and tokens > budget.max_tokens:
        found.append(f"{tokens:,} tokens, above the limit of {budget.max_tokens:,}")
    return found


def describe_limits(budget: Budget) -> str:
    """``1,000 requests, $5.00`` or ``none``."""
    parts = []
    if budget.max_requests is not None:
        parts.append(f"{budget.max_requests:,} requests")
    if budget.max_cost is not None:
        parts.append(f"${budget.max_cost:.2f}")
    if budget.max_tokens is not None:
        parts.append(f"{budget.max_tokens:,} tokens")
    return ", ".join(parts) or "none"
