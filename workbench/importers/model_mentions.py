"""The model-name detector: finds an answer that names the model that wrote it ("I am Yasa, an
AI assistant created by Reka", "I'm Idefics2"), which breaks a blind comparison (arena practice
discards such votes).

Two kinds of phrase count, case-insensitively and on word boundaries:

- a self-introduction naming a known model family: "I am NAME", "I'm NAME", "my name is NAME",
  "as NAME," (NAME from :data:`MODEL_NAMES`, optionally followed by a version such as "2" or
  "-4o");
- a maker named as the author: "created by ORG", "developed by ORG", "trained by ORG", "built
  by ORG", "made by ORG" (ORG from :data:`ORGANIZATIONS`).

A model naming another (a chart that mentions GPT-4, "Claude Monet") is not a self-
introduction and is not flagged; a generic "I am an AI assistant" is not either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: model families that introduce themselves by name (lower case)
MODEL_NAMES = (
    "aria",
    "bard",
    "bunny",
    "chatgpt",
    "claude",
    "cogvlm",
    "deepseek",
    "gemini",
    "gpt",
    "idefics",
    "internvl",
    "llama",
    "llava",
    "minicpm",
    "mistral",
    "palm",
    "qwen",
    "reka",
    "tongyi qianwen",
    "uform",
    "yasa",
    "yi",
)
#: organisations that make the models above (lower case)
ORGANIZATIONS = (
    "01.ai",
    "alibaba",
    "anthropic",
    "baai",
    "deepmind",
    "deepseek",
    "google",
    "hugging face",
    "huggingface",
    "meta",
    "microsoft",
    "mistral ai",
    "openai",
    "openbmb",
    "reka",
    "rhymes",
    "tsinghua",
    "unum",
    "zhipu",
)


def _alternatives(names: tuple[str, ...]) -> str:
    return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))


_VERSION = r"(?:[- ]?v?\d[\w.]*|-\w+)?"
_SELF = re.compile(
    r"\b(?:i\s+am|i'm|i’m|my\s+name\s+is)\s+(?:called\s+)?"
    rf"(?P<name>(?:{_alternatives(MODEL_NAMES)}){_VERSION})\b",
    re.IGNORECASE,
)
_MAKER = re.compile(
    r"\b(?:created|developed|trained|built|made)\s+by\s+"
    rf"(?P<name>{_alternatives(ORGANIZATIONS)})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ModelMention:
    """Where an answer names its model: the phrase as written, and where it starts."""

    phrase: str
    start: int


def names_its_model(text: str) -> ModelMention | None:
    """The first phrase of ``text`` by which it names its model or maker, or None."""
    found = [match for pattern in (_SELF, _MAKER) if (match := pattern.search(text))]
    if not found:
        return None
    first = min(found, key=lambda match: match.start())
    return ModelMention(first.group(0), first.start())
