"""The request hash and the response cache: a judge response stored under the SHA-256 of exactly
what was asked (model, parameters, messages), in the bundle's ``response_cache`` table, so asking
again costs nothing.

Images enter the hash by their content hash and the size they are scaled to, not by the base64
text sent: the same thing, cheaper to compute, and known before the image is encoded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from workbench.storage.dialects import insert_ignoring_conflicts
from workbench.storage.models import ResponseCache

_CHUNK = 500


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_hash(descriptor: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a request descriptor in canonical JSON."""
    return hashlib.sha256(canonical_json(descriptor).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int


def lookup(session: Session, hashes: Sequence[str]) -> dict[str, CachedResponse]:
    """The cached responses among ``hashes``."""
    found: dict[str, CachedResponse] = {}
    unique = sorted(set(hashes))
    for start in range(0, len(unique), _CHUNK):
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
