"""The async client against the fake server: retries on 429 (honouring Retry-After), 500 and
timeouts; refusals that stop a run; the budget; bounded concurrency."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY
from tests.patience import HANG_GUARD_SECONDS
from workbench.judge.client import (
    Budget,
    BudgetExhausted,
    ChatReply,
    EndpointError,
    JudgeClient,
    RequestFailed,
    RetryPolicy,
    retry_after_seconds,
)
from workbench.judge.cost import Price
from workbench.judge.secrets import Secret

MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "A or B?"}]
FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05, timeout=2.0)


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[FakeOpenAIServer]:
    faults = getattr(request, "param", Faults())
    with FakeOpenAIServer(faults=faults) as running:
        yield running


def client_for(server: FakeOpenAIServer, **options: object) -> JudgeClient:
    settings: dict[str, Any] = {"concurrency": 4, "retry": FAST}
    settings.update(options)
    return JudgeClient(
        base_url=server.base_url, api_key=Secret(FAKE_KEY), model="judge-x", **settings
    )


def reported(tokens: int | None) -> int:
    """A count the fake server always reports (a reply may lack it in general)."""
    assert tokens is not None
    return tokens


async def ask(client: JudgeClient, count: int = 1, distinct: bool = True) -> list[ChatReply]:
    async def one(n: int) -> ChatReply:
        messages = [MESSAGES[0], {"role": "user", "content": f"A or B? #{n if distinct else 0}"}]
        return await client.complete(
            messages,
            temperature=0.0,
            max_tokens=50,
            estimated_prompt_tokens=10,
            estimated_completion_tokens=10,
        )

    try:
        return await asyncio.gather(*(one(n) for n in range(count)))
    finally:
        await client.aclose()


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    future = datetime.now(UTC) + timedelta(seconds=30)
    assert 25 < (retry_after_seconds({"retry-after": format_datetime(future)}) or 0) <= 30
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_backoff_is_exponential_capped_and_jittered() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    for attempt, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)):
        delays = {policy.backoff(attempt, rng) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1


@pytest.mark.parametrize("server", [Faults(rate_limit_every=2, retry_after_ms=150)], indirect=True)
def test_rate_limits_are_retried_after_the_wait_the_server_asks(server: FakeOpenAIServer) -> None:
    client = client_for(server, concurrency=1)
    (reply,) = asyncio.run(ask(client))
    assert reply.text
    assert server.stats.statuses == {200: 1, 429: 1}
    (first, _), (second, _) = server.stats.arrivals
    assert second - first >= 0.15
    assert client.counters.retries == 1 and client.counters.requests == 1


@pytest.mark.parametrize("server", [Faults(server_error_every=3)], indirect=True)
def test_server_errors_are_retried(server: FakeOpenAIServer) -> None:
    client = client_for(server)
    replies = asyncio.run(ask(client, 8))
    assert len(replies) == 8
    assert server.stats.statuses[500] >= 2
    assert client.counters.retries == server.stats.statuses[500]


@pytest.mark.parametrize("server", [Faults(hang_every=2, hang_seconds=3.0)], indirect=True)
def test_timeouts_are_retried(server: FakeOpenAIServer) -> None:
    # the hung attempts never answer within the timeout; the others have a second for theirs
    client = client_for(server, concurrency=1, retry=RetryPolicy(4, 0.01, 0.05, timeout=1.0))
    (reply,) = asyncio.run(ask(client, 1))
    assert reply.text
    assert client.counters.retries >= 1


@pytest.mark.parametrize("server", [Faults(trickle_seconds=0.5)], indirect=True)
def test_the_timeout_bounds_an_attempt_that_trickles(server: FakeOpenAIServer) -> None:
    """One byte every 0.5 s never trips a per-read timeout; each attempt must still end."""
    client = client_for(server, concurrency=1, retry=RetryPolicy(2, 0.01, 0.05, timeout=1.5))
    with pytest.raises(RequestFailed, match="TimeoutError"):
        # the whole answer would take minutes per attempt, longer than this hang guard: only
        # the attempt's own timeout ends it in a RequestFailed
        asyncio.run(asyncio.wait_for(ask(client, 1), HANG_GUARD_SECONDS))
    assert server.stats.requests == 2 and client.counters.failed == 1


@pytest.mark.parametrize("server", [Faults(server_error_every=1)], indirect=True)
def test_a_request_fails_after_its_attempts(server: FakeOpenAIServer) -> None:
    client = client_for(server)
    with pytest.raises(RequestFailed, match="InternalServerError"):
        asyncio.run(ask(client))
    assert server.stats.statuses[500] == FAST.max_attempts
    assert client.counters.failed == 1


@pytest.mark.parametrize("server", [Faults(refuse_key=True)], indirect=True)
def test_a_refused_key_stops_at_once_and_is_not_repeated(server: FakeOpenAIServer) -> None:
    client = client_for(server)
    with pytest.raises(EndpointError) as raised:
        asyncio.run(ask(client))
    assert FAKE_KEY not in str(raised.value)
    assert "[redacted]" in str(raised.value)
    assert server.stats.requests == 1


def test_concurrency_is_bounded(server: FakeOpenAIServer) -> None:
    server.faults.latency = 0.1
    client = client_for(server, concurrency=5)
    asyncio.run(ask(client, 30))
    assert server.stats.max_in_flight == 5


def test_the_request_budget_holds_under_concurrency(server: FakeOpenAIServer) -> None:
    server.faults.latency = 0.02
    client = client_for(server, concurrency=4, budget=Budget(max_requests=5))

    async def many() -> list[ChatReply | BaseException]:
        try:
            return await asyncio.gather(
                *(
                    client.complete(
                        [MESSAGES[0], {"role": "user", "content": str(n)}],
                        temperature=0,
                        max_tokens=5,
                        estimated_prompt_tokens=1,
                        estimated_completion_tokens=1,
                    )
                    for n in range(12)
                ),
                return_exceptions=True,
            )
        finally:
            await client.aclose()

    results = asyncio.run(many())
    assert sum(isinstance(r, BudgetExhausted) for r in results) == 7
    assert server.stats.requests == 5


def test_cost_and_token_budgets_count_what_is_in_flight(server: FakeOpenAIServer) -> None:
    price = Price(1_000_000.0, 0.0)  # a dollar a token, to make the arithmetic plain
    client = client_for(server, budget=Budget(max_cost=25.0), price=price)

    async def many() -> list[ChatReply | BaseException]:
        try:
            return await asyncio.gather(
                *(
                    client.complete(
                        [MESSAGES[0], {"role": "user", "content": str(n)}],
                        temperature=0,
                        max_tokens=5,
                        estimated_prompt_tokens=10,
                        estimated_completion_tokens=0,
                    )
                    for n in range(4)
                ),
                return_exceptions=True,
            )
        finally:
            await client.aclose()

    results = asyncio.run(many())
    # each request is estimated at $10: two fit in $25 while they are in flight
    assert sum(isinstance(r, BudgetExhausted) for r in results) == 2
    assert client.counters.cost_usd == pytest.approx(
        sum(reported(r.prompt_tokens) for r in results if not isinstance(r, BaseException))
    )
    token_client = client_for(server, budget=Budget(max_tokens=15))
    with pytest.raises(BudgetExhausted, match="tokens"):
        asyncio.run(
            token_client.complete(
                MESSAGES,
                temperature=0,
                max_tokens=5,
                estimated_prompt_tokens=10,
                estimated_completion_tokens=10,
            )
        )
