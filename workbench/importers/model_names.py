"""One spelling per model name: names are normalised as they are imported, and names that still
look alike are reported.

A published file may spell one model in ways that look the same on screen: composed or
decomposed accents (NFC and NFD), a zero-width space, a trailing space. Stored as given, each
spelling becomes its own model, a row of the leaderboard that looks identical to another. So a
name is put in Unicode NFC, zero-width characters are removed and surrounding white space is
stripped. What normalising must not merge is reported instead: names that differ only by a
letter from another script that looks Latin (a Cyrillic ``о`` in ``gpt-4о``) are different
strings that may name different models, and only the user can say.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

#: characters of no width that make two names differ invisibly
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad")

#: letters of other scripts drawn like a Latin letter (Unicode's confusables, the common part)
_CONFUSABLE = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
        "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S",
        # Greek
        "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "τ": "t", "υ": "u",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    }
)  # fmt: skip


def normalize_model_name(name: str) -> str:
    """``name`` in NFC, without zero-width characters or surrounding white space."""
    composed = unicodedata.normalize("NFC", name)
    return "".join(char for char in composed if char not in ZERO_WIDTH).strip()


def skeleton(name: str) -> str:
    """What ``name`` looks like: normalised (:func:`normalize_model_name`, so a name stored by
    an older app with a zero-width or trailing space looks like its clean spelling),
    compatibility forms folded (NFKC) and look-alike letters of other scripts read as the Latin
    letter they resemble."""
    return unicodedata.normalize("NFKC", normalize_model_name(name)).translate(_CONFUSABLE)


def look_alikes(names: Iterable[str]) -> list[tuple[str, ...]]:
    """Groups of two or more different names that look the same, each sorted, in name order."""
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(skeleton(name), set()).add(name)
    return sorted(tuple(sorted(group)) for group in groups.values() if len(group) > 1)


def look_alikes_of_known(
    new: Iterable[str], known: Iterable[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """Each name of ``new`` that is not in ``known`` but looks like names that are (a second
    import naming a model of the bundle with a Cyrillic letter): (the new name, the known names
    it looks like, sorted), in name order."""
    by_look: dict[str, set[str]] = {}
    for name in known:
        by_look.setdefault(skeleton(name), set()).add(name)
    found = []
    for name in sorted(set(new)):
        alike = by_look.get(skeleton(name), set()) - {name}
        if alike:
            found.append((name, tuple(sorted(alike))))
    return found


def differing_characters(names: tuple[str, ...]) -> list[str]:
    """The characters that make look-alike ``names`` differ, by their Unicode names: letters
    outside ASCII, and white space found in some of the names but not all."""
    seen: set[str] = set()
    for name in names:
        seen.update(char for char in name if not char.isascii())
    shared = set.intersection(*(set(name) for name in names)) if names else set()
    for name in names:
        seen.update(char for char in name if char.isspace() and char not in shared)
    return [f"U+{ord(char):04X} {unicodedata.name(char, '?')}" for char in sorted(seen)]
