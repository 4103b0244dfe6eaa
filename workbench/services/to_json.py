"""Plain JSON values from analysis results: NaN and pandas' NA become null, numpy scalars
Python numbers, tables lists of records. Every result's ``to_json()`` ends here, and the CLI
prints what it returns."""

from __future__ import annotations

import math
from typing import Any, overload

import pandas as pd


@overload
def jsonable(value: dict[Any, Any]) -> dict[str, Any]: ...
@overload
def jsonable(value: list[Any] | tuple[Any, ...]) -> list[Any]: ...
@overload
def jsonable(value: object) -> Any: ...
def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return jsonable(value.item())
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A table as a list of JSON objects, one per row."""
    return [jsonable(row) for row in table.astype(object).to_dict(orient="records")]
