"""A cap on the bytes of an endpoint's answer, as sent and as inflated.

A judge answer is a few kilobytes of JSON, but the HTTP client reads whatever arrives into
memory: a 4 MB gzip body of zeros inflates to 4 GiB, and an endless chunked body never ends.
The HTTP client's response hook wraps each answer's byte stream before anything reads it: the
bytes received are counted, gzip and deflate are inflated here in bounded steps (so the
client's own decoder never sees them), and past the cap the read stops with
:class:`AnswerTooLarge`, which fails that request only. A hook rather than a transport keeps the
client's own transports, proxies from the environment included.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

#: the most an answer may be, as sent and once inflated (a verdict is a few kilobytes)
MAX_ANSWER_BYTES = 8 * 1024 * 1024

#: the encodings the client asks for, and inflates itself
_INFLATED = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": None}


class AnswerTooLarge(Exception):
    """An endpoint's answer went past :data:`MAX_ANSWER_BYTES`; its request fails, unretried
    (asking again would read the same flood)."""


class AnswerUnreadable(Exception):
    """An answer in an encoding the client did not ask for, or a damaged compressed body."""


def _too_large(where: str, limit: int, what: str) -> AnswerTooLarge:
    return AnswerTooLarge(f"the answer from {where} is over the limit of {limit:,} bytes {what}")


class _BoundedInflater:
    """Inflates one gzip or deflate body in steps of at most what is left under ``limit``, so
    a bomb stops at the limit instead of filling memory."""

    def __init__(self, encoding: str, limit: int, where: str) -> None:
        self._encoding = encoding
        self._limit = limit
        self._where = where
        self._inflated = 0
        self._decoder: Any = None

    def _decoder_for(self, chunk: bytes) -> Any:
        if self._decoder is None:
            wbits = _INFLATED[self._encoding]
            if wbits is None:  # deflate: zlib-wrapped as specified, or raw as some send
                wbits = zlib.MAX_WBITS if (chunk[0] & 0x0F) == 8 else -zlib.MAX_WBITS
            self._decoder = zlib.decompressobj(wbits)
        return self._decoder

    def _counted(self, out: bytes) -> bytes:
        self._inflated += len(out)
        if self._inflated > self._limit:
            raise _too_large(self._where, self._limit, "inflated")
        return out

    def inflate(self, chunk: bytes) -> Iterator[bytes]:
        """The inflated bytes of the next ``chunk`` received."""
        if not chunk:
            return
        decoder = self._decoder_for(chunk)
        data = chunk
        while data:
            try:
                out = decoder.decompress(data, self._limit - self._inflated + 1)
            except zlib.error as error:
                raise AnswerUnreadable(
                    f"the answer from {self._where} is damaged {self._encoding} data: {error}"
                ) from None
            if self._counted(out):
                yield out
            data = decoder.unconsumed_tail

    def rest(self) -> bytes:
        """What the decoder still holds once the body has ended."""
        return b"" if self._decoder is None else self._counted(self._decoder.flush())


def capped_answers(
    limit: int = MAX_ANSWER_BYTES, where: str = "the endpoint"
) -> dict[str, list[Callable[[Any], Awaitable[None]]]]:
    """The ``event_hooks`` of an HTTP client whose answers are capped at ``limit`` bytes, as
    sent and inflated; ``where`` names the endpoint in the error."""
    import httpx2  # here: the HTTP stack loads with the judge, not with this module

    class _CappedStream(httpx2.AsyncByteStream):
        def __init__(self, raw: Any, encoding: str | None, limit: int, where: str) -> None:
            self._raw = raw
            self._encoding = encoding
            self._limit = limit
            self._where = where

        def _too_large(self, what: str) -> AnswerTooLarge:
            return _too_large(self._where, self._limit, what)

        async def __aiter__(self) -> AsyncIterator[bytes]:
            received = 0
            inflater = (
                None
                if self._encoding is None
                else _BoundedInflater(self._encoding, self._limit, self._where)
            )
            async for chunk in self._raw:
                received += len(chunk)
                if received > self._limit:
                    raise self._too_large("as sent")
                if inflater is None:
                    yield chunk
                    continue
                for out in inflater.inflate(chunk):
                    yield out
            rest = inflater.rest() if inflater is not None else b""
            if rest:
                yield rest

        async def aclose(self) -> None:
            await self._raw.aclose()

    async def ask_for_what_is_inflated_here(request: Any) -> None:
        request.headers["accept-encoding"] = "gzip, deflate"

    async def cap(response: Any) -> None:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await response.aclose()
            raise AnswerTooLarge(
                f"the answer from {where} declares {int(declared):,} bytes, over the limit of "
                f"{limit:,}"
            )
        encodings = [
            value.strip().lower()
            for value in response.headers.get_list("content-encoding", split_commas=True)
            if value.strip().lower() not in ("", "identity")
        ]
        if len(encodings) > 1 or (encodings and encodings[0] not in _INFLATED):
            await response.aclose()
            raise AnswerUnreadable(
                f"the answer from {where} is encoded as {', '.join(encodings)}, which was not "
                "asked for"
            )
        # inflated here, so the client's own decoder must not see it; the length given is
        # that of the compressed body
        for header in ("content-encoding", "content-length"):
            if header in response.headers:
                del response.headers[header]
        response.stream = _CappedStream(
            response.stream, encodings[0] if encodings else None, limit, where
        )

    return {"request": [ask_for_what_is_inflated_here], "response": [cap]}
