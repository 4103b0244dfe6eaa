"""CSV cells that a spreadsheet would run as formulas, written as text instead.

A model's answer or a name beginning with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage
return before one) is evaluated by Excel, LibreOffice and Google Sheets when the CSV is opened:
``=HYPERLINK(...)`` or ``=cmd|...`` in a reviewer's spreadsheet. As OWASP advises, such a cell
is prefixed with a single quote, which spreadsheets show as text and do not display. Only text
is touched: numbers (a negative rating) stay numbers. JSONL exports keep text exactly.
"""

from __future__ import annotations

from typing import Any

#: first characters that make a spreadsheet read a cell as a formula
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """``value``, with a quote before it when it is text a spreadsheet would evaluate."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
