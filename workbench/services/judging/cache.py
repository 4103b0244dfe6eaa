"""The response cache: a judge response stored under the request hash
(:func:`workbench.judge.request_hash.request_hash`) in the bundle's ``response_cache`` table,
so asking again costs nothing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from workbench.progress import Progress, no_progress
from workbench.storage.dialects import insert_ignoring_conflicts
from workbench.storage.models import ResponseCache

_CHUNK = 500
#: hashes looked up between two progress reports of :func:`lookup` (a multiple of _CHUNK)
STEP = 20 * _CHUNK


@dataclass(frozen=True, slots=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int


def lookup(
    session: Session, hashes: Sequence[str], progress: Progress = no_progress
) -> dict[str, CachedResponse]:
    """The cached responses among ``hashes``; ``progress("cache", done, total)`` per
    :data:`STEP` of them (a cancel callback may raise there)."""
    found: dict[str, CachedResponse] = {}
    unique = sorted(set(hashes))
    for start in range(0, len(unique), _CHUNK):
        if start % STEP == 0:
            progress("cache", start, len(unique))
        chunk = unique[start : start + _CHUNK]
        rows = session.execute(
            select(
                ResponseCache.request_hash, ResponseCache.response_text, ResponseCache.usage
            ).where(ResponseCache.request_hash.in_(chunk))
        )
        for digest, text, usage in rows:
            usage = usage or {}
            found[digest] = CachedResponse(
                text, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
            )
    return found


def store(
    session: Session, entries: Iterable[tuple[str, CachedResponse]], *, replace: bool = False
) -> None:
    """Cache responses; a hash already cached keeps its first response, unless ``replace``
    (a run that asked again, ignoring the cache, caches its new answer)."""
    rows = [
        {
            "request_hash": digest,
            "response_text": response.text,
            "usage": {
                "prompt_tokens": response.prompt_tokens,
                "completion_tokens": response.completion_tokens,
            },
        }
        for digest, response in entries
    ]
    if rows and replace:
        digests = [row["request_hash"] for row in rows]
        for start in range(0, len(digests), _CHUNK):
            chunk = digests[start : start + _CHUNK]
            session.execute(delete(ResponseCache).where(ResponseCache.request_hash.in_(chunk)))
    if rows:
        session.execute(insert_ignoring_conflicts(session, ResponseCache), rows)
