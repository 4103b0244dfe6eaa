"""Reading the OpenAI-style conversations of arena battles (``[{"role", "content"}, ...]``) into
user turns, each with the images it showed and the assistant's answer.

Content is a string or a list of parts: ``{"type": "text", "text"}``, ``{"type": "image_url",
"image_url": {"url"}}``, ``{"type": "image", "image"}``, or FastChat's multimodal pair written
out as ``["text", ["image ref", ...]]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench_arena.jsonfiles import RowError

USER = "user"
ASSISTANT = "assistant"
SYSTEM = "system"


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    """A user message, the images it carried (as the file names them), and the answer."""

    prompt: str
    images: tuple[str, ...]
    answer: str | None = None


def _image_ref(part: dict[str, Any], where: str) -> str:
    value = part.get("image_url") if part.get("type") == "image_url" else part.get("image")
    if isinstance(value, dict):
        value = value.get("url")
    if not isinstance(value, str) or not value:
        raise RowError(where, "an image part must name its image (a URL, file name or hash)")
    return value


def read_content(value: Any, where: str) -> tuple[str, tuple[str, ...]]:
    """The text of a message and the images it names, in order."""
    if isinstance(value, str):
        return value, ()
    if not isinstance(value, list):
        kind = "null" if value is None else type(value).__name__
        raise RowError(where, f"must be a string or a list of parts, not {kind}")
    texts: list[str] = []
    images: list[str] = []
    for index, part in enumerate(value):
        here = f"{where}[{index}]"
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, list) and all(isinstance(ref, str) for ref in part):
            images.extend(part)  # FastChat's (text, [images]) pair
        elif isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise RowError(f"{here}.text", "a text part must hold a string")
            texts.append(text)
        elif isinstance(part, dict) and part.get("type") in ("image_url", "image"):
            images.append(_image_ref(part, here))
        else:
            raise RowError(here, "is not a text or image part")
    return "\n".join(texts), tuple(images)


def _as_messages(value: list[Any]) -> list[Any]:
    """Some datasets write a conversation as turns of ``{"user": ..., "assistant": ...}``
    instead of messages; those become the two messages they stand for."""
    messages: list[Any] = []
    for turn in value:
        if isinstance(turn, dict) and "role" not in turn and USER in turn:
            messages.append({"role": USER, "content": turn[USER]})
            if turn.get(ASSISTANT) is not None:
                messages.append({"role": ASSISTANT, "content": turn[ASSISTANT]})
        else:
            messages.append(turn)
    return messages


def read_conversation(value: Any, where: str) -> list[ConversationTurn]:
    """The user turns of a conversation. System messages are skipped; an assistant message
    answers the user message before it, and a user message may stay unanswered."""
    if not isinstance(value, list):
        raise RowError(where, "must be a list of messages")
    value = _as_messages(value)
    turns: list[ConversationTurn] = []
    for index, message in enumerate(value):
        here = f"{where}[{index}]"
        if not isinstance(message, dict):
            raise RowError(here, "a message must be an object with 'role' and 'content'")
        role = message.get("role")
        text, images = read_content(message.get("content"), f"{here}.content")
        if role == SYSTEM:
            continue
        if role == USER:
            turns.append(ConversationTurn(text, images))
        elif role == ASSISTANT:
            if not turns or turns[-1].answer is not None:
                raise RowError(f"{here}.role", "an assistant message must follow a user message")
            last = turns[-1]
            turns[-1] = ConversationTurn(last.prompt, last.images, text)
        else:
            raise RowError(
                f"{here}.role", f"must be 'user', 'assistant' or 'system', not {str(role)[:60]!r}"
            )
    if not turns:
        raise RowError(where, "holds no user message")
    return turns


#: The keys a benchmark prompt row may hold its prompt in, in the order they are tried.
PROMPT_KEYS = ("conversation", "turns", "question", "prompt")


def read_prompt_turns(row: dict[str, Any]) -> list[ConversationTurn]:
    """The user turns of a prompt row without a model: a ``conversation`` of messages,
    Arena-Hard's ``turns`` (``[{"content": ...}]``), or one ``question`` or ``prompt`` text."""
    for key in PROMPT_KEYS:
        value = row.get(key)
        if value is None:
            continue
        if key == "conversation":
            return read_conversation(value, key)
        if key == "turns":
            if not isinstance(value, list) or not value:
                raise RowError(key, "must be a non-empty list of turns")
            turns = []
            for index, turn in enumerate(value):
                content = turn.get("content") if isinstance(turn, dict) else turn
                text, images = read_content(content, f"{key}[{index}].content")
                turns.append(ConversationTurn(text, images))
            return turns
        if not isinstance(value, str) or not value.strip():
            raise RowError(key, "must be a non-empty string")
        return [ConversationTurn(value, ())]
    raise RowError(
        None,
        "is neither a battle (model_a, model_b, winner), a chat (model, conversation) nor a "
        "prompt (conversation, turns, question or prompt)",
    )
