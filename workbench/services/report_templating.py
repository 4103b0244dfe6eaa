"""The Jinja2 environment that draws the report: templates shipped beside this module
(``report_templates/``), autoescaping on for every template, and every printed value passed
through :func:`shown` first. A value reaches the page unescaped only as
:class:`markupsafe.Markup`, which the report makes in one place
(:func:`workbench.services.report_data.script_json`)."""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

#: the templates, read from files beside this module: a source tree, an installed wheel and
#: the frozen app (which ships the folder as data, see packaging/workbench.spec) all have them
#: on disk there
TEMPLATES = Path(__file__).with_name("report_templates")

#: characters that change the direction of the text after them (embeddings, overrides,
#: isolates, marks)
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")

#: a word holding a direction control: a name, up to the spaces, quotes or ``=`` around it
_WORD_WITH_BIDI = re.compile(
    "[^\\s'\"=<>]*[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c][^\\s'\"=<>]*"
)


def isolate_directions(text: str) -> str:
    """The text with each word that holds a direction control isolated.

    A right-to-left override in a model name reversed the rest of its paragraph. Each word
    holding one goes between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, so whatever it
    opens ends with the word (Unicode's bidi algorithm, rule X6a), in element text and
    attributes, however many times a line names it."""
    if not _BIDI_CONTROLS.search(text):
        return text
    return _WORD_WITH_BIDI.sub(lambda found: f"\u2068{found.group()}\u2069", text)


def shown(value: Any) -> Any:
    """Every ``{{ value }}`` before it is escaped: nothing for None, text with its direction
    controls isolated; markup the templates made themselves (a macro's output) as it is."""
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return isolate_directions(value)
    return value


def number(value: Any, digits: int = 1) -> str:
    """A number with ``digits`` decimals; a dash for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):.{digits}f}"


def percent(value: Any) -> str:
    """A share as a percentage with one decimal; a dash for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * float(value):.1f}%"


@cache
def environment() -> Environment:
    """The report's environment, built once per process."""
    made = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    made.filters["number"] = number
    made.filters["percent"] = percent
    return made
