"""Settings declared as frozen dataclasses, read from and written to JSON by their type hints.

A settings model says each setting's name, type and default once, as a dataclass field; this
module reads a JSON object into it (checking every value against its field's type, and naming
the setting that does not fit) and writes it back. The campaign settings
(``workbench.services.campaign_settings``) and the app's settings file
(``workbench.storage.app_settings``) are both read this way, so neither writes its fields out
by hand. Types understood: ``str``, ``int``, ``float`` (an int is accepted), ``bool``,
``bytes`` (base64 text), ``pathlib.Path`` (text), ``X | None``, ``tuple[X, ...]``,
``dict[str, X]``, ``Literal[...]``, ``Any`` and nested settings dataclasses."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

Model = TypeVar("Model")


class SettingError(ValueError):
    """A stored value that does not fit its setting's type; the message names the setting."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _refuse(where: str, wanted: str, value: Any) -> SettingError:
    shown = repr(value) if isinstance(value, str | int | float | bool) else _kind(value)
    return SettingError(f"setting '{where}' must be {wanted}, not {shown}")


def _convert(hint: Any, value: Any, where: str, lenient: bool = False) -> Any:
    """``value`` read as ``hint``, or :class:`SettingError` naming the setting ``where`` (a
    path such as ``practice[0].item``). ``lenient``: entries of a list or object that do not
    fit are left out, and a nested model's settings that do not fit take their defaults."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        arms = [arm for arm in typing.get_args(hint) if arm is not type(None)]
        if value is None and len(arms) < len(typing.get_args(hint)):
            return None
        if len(arms) == 1:
            return _convert(arms[0], value, where, lenient)
        for arm in arms:
            try:
                return _convert(arm, value, where, lenient)
            except SettingError:
                continue
        raise _refuse(where, " or ".join(map(_name, arms)), value)
    if origin is typing.Literal:
        choices = typing.get_args(hint)
        if value not in choices:
            raise _refuse(where, "one of " + ", ".join(map(repr, choices)), value)
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise _refuse(where, "a list", value)
        items = typing.get_args(hint)
        if len(items) != 2 or items[1] is not Ellipsis:  # a fixed length, a type per place
            if len(value) != len(items):
                raise _refuse(where, f"a list of {len(items)}", value)
            return tuple(
                _convert(item, entry, f"{where}[{i}]")
                for i, (item, entry) in enumerate(zip(items, value, strict=True))
            )
        entries = ((f"{where}[{i}]", entry) for i, entry in enumerate(value))
        return tuple(_entries(items[0], entries, lenient).values())
    if origin is dict:
        if not isinstance(value, dict):
            raise _refuse(where, "an object", value)
        _, item = typing.get_args(hint)
        found = _entries(item, ((str(key), entry) for key, entry in value.items()), lenient, where)
        return found
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if not isinstance(value, dict):
            raise _refuse(where, "an object", value)
        return _fields(hint, value, f"{where}.", lenient)
    return _SCALARS.get(hint, _unknown)(value, where)


def _entries(hint: Any, entries: Any, lenient: bool, parent: str | None = None) -> dict[str, Any]:
    """Each (name, value) of a list (names are paths) or an object (names are keys under
    ``parent``) read as ``hint``; with ``lenient`` those that do not fit are left out."""
    found: dict[str, Any] = {}
    for name, entry in entries:
        where = name if parent is None else f"{parent}.{name}"
        try:
            found[name] = _convert(hint, entry, where, lenient)
        except SettingError:
            if not lenient:
                raise
    return found


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", str(hint))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _refuse(where, "text", value)
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _refuse(where, "true or false", value)
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(where, "a whole number", value)
    return value


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _refuse(where, "a number", value)
    return float(value)


def _bytes(value: Any, where: str) -> bytes:
    try:
        return base64.b64decode(_text(value, where), validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(where, "base64 text", value) from None


def _path(value: Any, where: str) -> Path:
    text = _text(value, where)
    if not text:
        raise _refuse(where, "a path", value)
    return Path(text)


def _unknown(value: Any, where: str) -> Any:
    raise SettingError(f"setting '{where}': no reader for this setting's type")


_SCALARS: dict[Any, Callable[[Any, str], Any]] = {
    str: _text,
    bool: _bool,
    int: _int,
    float: _float,
    bytes: _bytes,
    Path: _path,
}


def read_model(
    model: type[Model], data: Mapping[str, Any], where: str, lenient: bool = False
) -> Model:
    """``data`` (a JSON object) as the settings dataclass ``model``: each field read from its
    key (absent: its default) and checked against its type; keys that are no field are left
    out (another version's settings). A value that does not fit raises :class:`SettingError`
    naming ``where`` and the setting, as does the model's own check (``__post_init__`` raising
    :class:`SettingError` with the setting's name). ``lenient`` (the app's own settings file,
    where a bad value should cost only that value): a setting that does not fit takes its
    default, and list entries or object members that do not fit are left out."""
    try:
        return _fields(model, data, "", lenient)
    except SettingError as error:
        raise SettingError(f"{where}: {error}") from None


def _fields(
    model: type[Model], data: Mapping[str, Any], prefix: str, lenient: bool = False
) -> Model:
    """:func:`read_model` of a (possibly nested) model, its settings named ``prefix + name``."""
    hints = _type_hints(model)
    values: dict[str, Any] = {}
    for spec in _stored_fields(model):
        if spec.name in data:
            try:
                values[spec.name] = _convert(
                    hints[spec.name], data[spec.name], prefix + spec.name, lenient
                )
            except SettingError:
                if not lenient:
                    raise
    try:
        return model(**values)
    except TypeError as error:  # a required setting missing
        raise SettingError(f"setting '{prefix.rstrip('.')}' is incomplete ({error})") from None


#: each settings model's resolved field types, by model
_TYPE_HINTS: dict[type[Any], dict[str, Any]] = {}


def _type_hints(model: type[Any]) -> dict[str, Any]:
    """A settings model's resolved field types. Resolving the annotations (strings under
    ``from __future__ import annotations``) costs milliseconds, and a campaign's settings are read
    at every task handed out, so each model's are resolved once."""
    hints = _TYPE_HINTS.get(model)
    if hints is None:
        hints = _TYPE_HINTS[model] = typing.get_type_hints(model)
    return hints


#: a field's metadata saying it is not stored (a state of the running app, not a setting)
NOT_STORED = {"stored": False}


def _stored_fields(model: Any) -> list[dataclasses.Field[Any]]:
    return [
        spec
        for spec in dataclasses.fields(model)
        if spec.init and spec.metadata.get("stored", True)
    ]


def write_model(settings: Any) -> dict[str, Any]:
    """A settings dataclass as a JSON object, every stored field under its name."""
    return {spec.name: _plain(getattr(settings, spec.name)) for spec in _stored_fields(settings)}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return write_model(value)
    if isinstance(value, tuple | list):
        return [_plain(entry) for entry in value]
    if isinstance(value, dict):
        return {str(key): _plain(entry) for key, entry in value.items()}
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Path):
        return str(value)
    return value


def plain_value(value: Any) -> Any:
    """One setting's value as JSON holds it (what :func:`write_model` writes for it)."""
    return _plain(value)
