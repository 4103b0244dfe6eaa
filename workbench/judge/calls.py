"""What one judge call sends: the rendered messages, the images by reference, the parameters,
the request hash that identifies it, and its token estimate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from workbench.judge.cases import ImageRef
from workbench.judge.cost import MESSAGE_OVERHEAD_TOKENS, image_tokens, text_tokens
from workbench.judge.request_hash import request_hash

#: bump when the way requests are assembled changes, so old cache entries stop matching
REQUEST_FORMAT = 1


@dataclass(frozen=True)
class JudgeCall:
    """One chat request: a system and a user message, the user message carrying images after
    its text when there are any."""

    model: str
    system: str
    user: str
    temperature: float
    max_tokens: int
    images: tuple[ImageRef, ...] = ()
    max_image_side: int = 1024

    def descriptor(self) -> dict[str, Any]:
        """Exactly what is asked, with images named by content hash and target size."""
        user: Any = self.user
        if self.images:
            user = [{"type": "text", "text": self.user}] + [
                {"type": "image", "sha256": image.sha256, "max_side": self.max_image_side}
                for image in self.images
            ]
        return {
            "format": REQUEST_FORMAT,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "messages": [
                {"role": "system", "content": self.system},
                {"role": "user", "content": user},
            ],
        }

    @cached_property
    def hash(self) -> str:
        return request_hash(self.descriptor())

    @cached_property
    def estimated_prompt_tokens(self) -> int:
        return (
            text_tokens(self.system)
            + text_tokens(self.user)
            + 2 * MESSAGE_OVERHEAD_TOKENS
            + sum(image_tokens(i.width, i.height, self.max_image_side) for i in self.images)
        )

    def messages(self, image_urls: Sequence[str] = ()) -> list[dict[str, Any]]:
        """The messages to send; ``image_urls`` are the data URLs of ``images``, in order."""
        if len(image_urls) != len(self.images):
            raise ValueError("one data URL per image is needed")
        user: Any = self.user
        if self.images:
            user = [{"type": "text", "text": self.user}] + [
                {"type": "image_url", "image_url": {"url": url}} for url in image_urls
            ]
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": user},
        ]
