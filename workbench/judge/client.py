"""An OpenAI-compatible chat client for judging: bounded concurrency, retries with exponential
backoff and jitter on rate limits, server errors and timeouts (honouring Retry-After), and a
per-run budget of requests, tokens and dollars. Cancelling the awaiting task stops a request
cleanly; nothing half-done is counted.

It runs on whatever asyncio loop awaits it: a plain one in the CLI, the qasync loop in the GUI.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from workbench.errors import WorkbenchError
from workbench.judge.answer_limits import (
    MAX_ANSWER_BYTES,
    AnswerTooLarge,
    AnswerUnreadable,
    capped_answers,
)
from workbench.judge.cost import Price
from workbench.judge.secrets import Secret, public_base_url, scrub
from workbench.logging_setup import redact

log = logging.getLogger(__name__)

#: the longest Retry-After we wait for before treating the endpoint as unavailable
MAX_RETRY_AFTER = 600.0


class BudgetExhausted(WorkbenchError):
    """The run's budget does not allow another request."""


class EndpointError(WorkbenchError):
    """The endpoint refuses every request (bad key, unknown model, no quota): stop the run."""


class RequestFailed(WorkbenchError):
    """One request failed for good (after its retries, or with an error retrying cannot fix).
    ``reason`` names the kind of failure in a few words ("timeout", "HTTP 500"), for counts."""

    def __init__(self, message: str, reason: str = "other") -> None:
        super().__init__(message)
        self.reason = reason


def failure_reason(error: BaseException) -> str:
    """A few words naming what went wrong with an attempt, the same for alike failures."""
    # start-up: openai takes seconds to import; only a judge call needs it
    import openai

    if isinstance(error, TimeoutError | openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection failed"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, AnswerTooLarge):
        return "answer too large"
    if isinstance(error, AnswerUnreadable):
        return "unreadable answer"
    if isinstance(error, UnusableAnswer):
        return "no usable completion"
    if isinstance(error, ValueError):
        return "malformed answer"
    return type(error).__name__


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a request is retried. ``timeout`` bounds each attempt in
    wall-clock time (seconds), however the answer arrives."""

    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    timeout: float = 120.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """The wait before retry number ``attempt`` (1-based): exponential, capped, with "equal
        jitter" (half fixed, half random) so that many waiting requests do not return at once."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        result: float = ceiling / 2 + rng.uniform(0, ceiling / 2)
        return result


@dataclass(frozen=True)
class Budget:
    """Limits of one run; None means no limit. A retried request counts once."""

    max_requests: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_requests": self.max_requests,
            "max_tokens": self.max_tokens,
            "max_cost_usd": self.max_cost,
        }


@dataclass
class UsageCounters:
    """What the client has spent so far."""

    requests: int = 0
    attempts: int = 0
    retries: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class _Reservation:
    tokens: int
    cost: float


@dataclass
class BudgetMeter:
    """Admits a request only if what is spent plus what is in flight (by estimate) plus the
    request's own estimate stays within the budget, so concurrency cannot overshoot it."""

    budget: Budget
    price: Price | None
    counters: UsageCounters = field(default_factory=UsageCounters)
    _reserved_tokens: int = 0
    _reserved_cost: float = 0.0

    def reserve(self, prompt_tokens: int, completion_tokens: int) -> _Reservation:
        budget = self.budget
        if budget.max_requests is not None and self.counters.requests >= budget.max_requests:
            raise BudgetExhausted(f"the budget of {budget.max_requests} requests is used up")
        tokens = prompt_tokens + completion_tokens
        spent_tokens = self.counters.prompt_tokens + self.counters.completion_tokens
        if budget.max_tokens is not None and (
            spent_tokens + self._reserved_tokens + tokens > budget.max_tokens
        ):
            raise BudgetExhausted(f"the budget of {budget.max_tokens} tokens would be exceeded")
        cost = self.price.cost(prompt_tokens, completion_tokens) if self.price else 0.0
        if budget.max_cost is not None and (
            self.counters.cost_usd + self._reserved_cost + cost > budget.max_cost
        ):
            raise BudgetExhausted(f"the budget of ${budget.max_cost:g} would be exceeded")
        self.counters.requests += 1
        self._reserved_tokens += tokens
        self._reserved_cost += cost
        return _Reservation(tokens, cost)

    def release(self, reservation: _Reservation) -> None:
        self._reserved_tokens -= reservation.tokens
        self._reserved_cost -= reservation.cost

    def charge(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        self.counters.prompt_tokens += prompt_tokens
        self.counters.completion_tokens += completion_tokens
        if self.price is None:
            return None
        cost = self.price.cost(prompt_tokens, completion_tokens)
        self.counters.cost_usd += cost
        return cost


@dataclass(frozen=True)
class ChatReply:
    """A judge's answer. Token counts are None when the endpoint reported no usage; latency is
    that of the attempt that succeeded."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    latency_ms: int
    attempts: int


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The wait a response asks for: ``retry-after-ms``, or ``Retry-After`` as seconds or as an
    HTTP date."""
    if not headers:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _classify(error: Exception) -> tuple[str, float | None]:
    """("retry" | "fail" | "fatal", wait asked for by the server) for an error of the openai
    library."""
    # start-up: openai takes seconds to import; only a judge call needs it
    import openai

    if isinstance(error, AnswerTooLarge | AnswerUnreadable):
        return "fail", None  # asking again would read the same flood
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers if error.response is not None else None
        wait = retry_after_seconds(headers)
        code = getattr(error, "code", None)
        if (
            isinstance(
                error,
                openai.AuthenticationError | openai.PermissionDeniedError | openai.NotFoundError,
            )
            or code == "insufficient_quota"
        ):
            return "fatal", None
        if error.status_code in (408, 409, 429) or error.status_code >= 500:
            return "retry", wait
        return "fail", None
    if isinstance(error, openai.APIConnectionError):  # includes timeouts
        return "retry", None
    if isinstance(error, UnusableAnswer | ValueError | TimeoutError):
        return "retry", None  # a gateway's page, broken JSON, an attempt over its time
    return "fail", None


class UnusableAnswer(Exception):
    """A 200 answer that holds no chat completion (a gateway's HTML page, ``{}``, an SSE stream,
    a message without content). Retried like a server error; never cached, never a verdict."""


def completion_text(body: Any) -> str:
    """The text of the first choice of a chat-completion JSON body. Content given as a list of
    parts (``[{"type": "text", "text": ...}, ...]``) is joined. Raises UnusableAnswer when the
    body holds no completion."""
    if not isinstance(body, dict):
        start = body[:60] if isinstance(body, str) else type(body).__name__
        raise UnusableAnswer(f"the answer is not a chat completion: {start!r}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise UnusableAnswer("the answer has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise UnusableAnswer("the answer's first choice has no message")
    content = message.get("content")
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") in ("text", "output_text")
            and isinstance(part.get("text"), str)
        ]
        if not texts:
            raise UnusableAnswer("the answer's content has no text part")
        content = "".join(texts)
    if not isinstance(content, str):
        raise UnusableAnswer("the answer's message has no text content")
    return content


#: a reported token count above this is not believed (no request comes near it): the answer is
#: kept, with its usage treated as unreported
MAX_REPORTED_TOKENS = 10**9

#: lone surrogates (JSON can carry them, UTF-8 cannot) and NUL (PostgreSQL refuses it in text)
_UNSTORABLE = re.compile("[\ud800-\udfff\x00]")


def _count(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_REPORTED_TOKENS:
        return value
    if value is not None:
        log.warning("the endpoint reported an impossible token count (%.40r); ignored", value)
    return None


def storable_text(text: str) -> str:
    """``text`` with lone surrogates and NUL characters replaced by U+FFFD, so that any answer
    can be stored, on either backend."""
    return _UNSTORABLE.sub("\ufffd", text)


def _describe(error: Exception, key: Secret | None = None, endpoint: str | None = None) -> str:
    """One line on what went wrong; a connection that could not be made names the endpoint
    (the library's own words, "Connection error.", do not say where it tried)."""
    # start-up: openai takes seconds to import; only a judge call needs it
    import openai

    if isinstance(error, TimeoutError) and not str(error):
        return "TimeoutError: the attempt took longer than its timeout"
    text = redact(f"{type(error).__name__}: {error}")
    if (
        endpoint is not None
        and isinstance(error, openai.APIConnectionError)
        and not isinstance(error, openai.APITimeoutError)
    ):
        cause = error.__cause__
        why = redact(str(cause)) if cause is not None and str(cause) else str(error)
        text = f"cannot connect to {endpoint}: {why}"
    return text if key is None else scrub(text, key)


class JudgeClient:
    """Sends chat requests to one model at one endpoint, at most ``concurrency`` at a time."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: Secret,
        model: str,
        concurrency: int = 8,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
        price: Price | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        # start-up: openai takes seconds to import; only a judge call needs it
        import openai

        if concurrency < 1:
            raise WorkbenchError("concurrency must be at least 1")
        self.model = model
        #: where requests go, as it may be shown (no user info, query or fragment)
        self.endpoint = public_base_url(base_url)
        self._key = api_key
        self.retry = retry or RetryPolicy()
        self.meter = BudgetMeter(budget or Budget(), price)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._slots = asyncio.Semaphore(concurrency)
        # The library's own retries are off, and ours kept, because the library's cannot do
        # what a judge run needs: it retries neither a 200 answer without a completion (a
        # gateway's page) nor an attempt over our whole-attempt timeout; it gives up at once on
        # a Retry-After over two minutes, where we wait up to MAX_RETRY_AFTER (a rate limit
        # reset in five minutes is common); its retries are invisible to
        # the budget and to the run's retry counts; and its sleeps cannot be replaced in
        # tests. Building the client loads the TLS certificates: construct a JudgeClient in a
        # worker thread when an event loop must stay responsive.
        # Every answer is read through a byte cap, as sent and inflated: the library would
        # otherwise read a gzip bomb or an endless body into memory, inside the app.
        self._openai = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key.reveal(),
            max_retries=0,
            timeout=self.retry.timeout,
            http_client=openai.DefaultAsyncHttpxClient(
                event_hooks=capped_answers(max_answer_bytes, self.endpoint)
            ),
        )

    @property
    def counters(self) -> UsageCounters:
        return self.meter.counters

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        temperature: float,
        max_tokens: int,
        estimated_prompt_tokens: int,
        estimated_completion_tokens: int,
    ) -> ChatReply:
        """The judge's answer to ``messages``.

        Raises BudgetExhausted before sending when the budget does not allow the request,
        EndpointError when the endpoint refuses all requests, RequestFailed when this request
        cannot be completed.
        """
        reservation = self.meter.reserve(estimated_prompt_tokens, estimated_completion_tokens)
        try:
            return await self._with_retries(
                messages, temperature, max_tokens, estimated_prompt_tokens
            )
        except RequestFailed:
            self.counters.failed += 1
            raise
        finally:
            self.meter.release(reservation)

    async def _with_retries(
        self,
        messages: Sequence[Mapping[str, Any]],
        temperature: float,
        max_tokens: int,
        estimated_prompt_tokens: int,
    ) -> ChatReply:
        attempt = 0
        while True:
            attempt += 1
            self.counters.attempts += 1
            try:
                async with self._slots:
                    started = time.perf_counter()
                    # The typed API, for the request; the answer is read as plain JSON (the
                    # raw response parsed to ``object``), not built into typed objects: that
                    # cost milliseconds per answer on the event loop, and completion_text
                    # checks hostile answers (an HTML page, ``{}``) the typed model would
                    # accept. The library's timeout is per read: an endpoint that trickles a
                    # byte at a time would hold the request forever. This one bounds the whole
                    # attempt.
                    raw = await asyncio.wait_for(
                        self._openai.chat.completions.with_raw_response.create(
                            model=self.model,
                            messages=cast(Any, list(messages)),
                            temperature=temperature,
                            max_tokens=max_tokens,
                        ),
                        self.retry.timeout,
                    )
                    response = raw.parse(to=object)
                    latency_ms = round((time.perf_counter() - started) * 1000)
                text = scrub(storable_text(completion_text(response)), self._key)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                verdict, wait = _classify(error)
                if verdict == "fatal":
                    raise EndpointError(
                        f"the judge endpoint refused the request: {_describe(error, self._key)}"
                    ) from None
                if verdict == "fail" or attempt >= self.retry.max_attempts:
                    raise RequestFailed(
                        _describe(error, self._key, self.endpoint), failure_reason(error)
                    ) from None
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise RequestFailed(
                        f"the endpoint asks to wait {wait:.0f} s: {_describe(error, self._key)}",
                        "asked to wait too long",
                    ) from None
                delay = self.retry.backoff(attempt, self._rng)
                if wait is not None:
                    # The server knows when it will take requests again; a little jitter keeps
                    # the waiting requests from arriving together.
                    delay = wait + self._rng.uniform(0, min(0.1 * wait + 0.01, 1.0))
                self.counters.retries += 1
                log.debug(
                    "retry %d in %.2f s after %s", attempt, delay, _describe(error, self._key)
                )
                await self._sleep(delay)
                continue
            # completion_text above raised unless the body is a JSON object
            body = cast(dict[str, Any], response)
            return self._reply(body, text, latency_ms, attempt, estimated_prompt_tokens)

    def _reply(
        self,
        body: dict[str, Any],
        text: str,
        latency_ms: int,
        attempts: int,
        estimated_prompt_tokens: int,
    ) -> ChatReply:
        """The answer's text and usage, tolerating the gaps some local servers leave (no
        usage)."""
        reported = body.get("usage")
        usage = reported if isinstance(reported, dict) else {}
        prompt_tokens = _count(usage.get("prompt_tokens"))
        completion_tokens = _count(usage.get("completion_tokens"))
        cost = self.meter.charge(
            prompt_tokens if prompt_tokens is not None else estimated_prompt_tokens,
            completion_tokens if completion_tokens is not None else 0,
        )
        if prompt_tokens is None or completion_tokens is None:
            cost = None
        return ChatReply(text, prompt_tokens, completion_tokens, cost, latency_ms, attempts)

    async def aclose(self) -> None:
        await self._openai.close()
