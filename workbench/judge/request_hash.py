"""The request hash: the SHA-256 of exactly what a judge request asks (model, parameters,
messages), in canonical JSON; the response cache and the run's uniqueness rule key on it.

Images enter the hash by their content hash and the size they are scaled to, not by the base64
text sent: the same thing, cheaper to compute, and known before the image is encoded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_hash(descriptor: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a request descriptor in canonical JSON."""
    return hashlib.sha256(canonical_json(descriptor).encode("utf-8")).hexdigest()
