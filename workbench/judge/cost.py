"""Prices and cost: the dated list of judge-model prices (``prices.toml``, each entry with its
source) that a user's price overrides, token estimates for requests not yet sent, and the
estimate shown before a run (requests x tokens x price), which says where its price came from."""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.judge.images import fitted_size


class PriceError(WorkbenchError):
    pass


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input_per_million: float
    output_per_million: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000


#: the app's dated list of judge-model prices (package data beside this module)
PRICE_LIST_FILE = "prices.toml"


@dataclass(frozen=True, slots=True)
class PriceOrigin:
    """Where a price comes from: an entry of the dated price list (``as_of``, ``source``), or
    the user (``by_user``; ``source`` says how: ``--price``, a file, the dialog), in which case
    ``overrides`` describes the listed price it replaced, if any."""

    source: str
    as_of: str | None = None
    by_user: bool = False
    overrides: str | None = None

    def describe(self) -> str:
        if not self.by_user:
            return f"list price as of {self.as_of}, source {self.source}"
        text = f"price given by you ({self.source})"
        return f"{text}, overriding the {self.overrides}" if self.overrides else text

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "as_of": self.as_of,
            "by_user": self.by_user,
            "overrides": self.overrides,
        }


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name, each with where it comes from. A dated model name
    (``gpt-4o-2024-08-06``) takes the price of the longest listed name it starts with."""

    prices: Mapping[str, Price]
    origins: Mapping[str, PriceOrigin] = field(default_factory=dict)

    def _listed_name(self, model: str) -> str | None:
        if model in self.prices:
            return model
        prefixes = [name for name in self.prices if model.startswith(name + "-")]
        return max(prefixes, key=len) if prefixes else None

    def for_model(self, model: str) -> Price | None:
        name = self._listed_name(model)
        return None if name is None else self.prices[name]

    def origin_for(self, model: str) -> PriceOrigin | None:
        name = self._listed_name(model)
        return None if name is None else self.origins.get(name)

    def with_price(self, model: str, price: Price, source: str = "your price") -> PriceTable:
        """This table with the user's ``price`` for ``model``, remembering what it overrides."""
        replaced = self.origin_for(model)
        overrides = None
        if replaced is not None and not replaced.by_user:
            listed = self.for_model(model)
            assert listed is not None  # an origin is only kept beside a price
            overrides = (
                f"list price ${listed.input_per_million:g}/${listed.output_per_million:g} "
                f"as of {replaced.as_of}"
            )
        origin = PriceOrigin(source, by_user=True, overrides=overrides)
        return PriceTable({**self.prices, model: price}, {**self.origins, model: origin})


def _text(value: Any) -> str | None:
    """A TOML date (or an ISO date string) as ``YYYY-MM-DD``; None if it is neither."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat()
        except ValueError:
            return None
    return None


def load_price_list(path: Path | None = None) -> PriceTable:
    """The dated price list (the app's own unless ``path`` names another): a TOML file with an
    ``as_of`` date and ``[models."NAME"]`` tables of ``input``, ``output`` (USD per million
    tokens) and ``source``, each entry optionally with its own ``as_of``."""
    where = path or Path(str(resources.files("workbench.judge") / PRICE_LIST_FILE))
    try:
        raw = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PriceError(f"cannot read the price list {where}: {error}") from error
    file_date = _text(raw.get("as_of"))
    if file_date is None:
        raise PriceError(f"{where}: `as_of` must be the date the prices were read (YYYY-MM-DD)")
    models = raw.get("models")
    if not isinstance(models, dict) or not models:
        raise PriceError(f'{where}: no [models."NAME"] entries')
    prices: dict[str, Price] = {}
    origins: dict[str, PriceOrigin] = {}
    for name, entry in models.items():
        entry = entry if isinstance(entry, dict) else {}
        values = [entry.get("input"), entry.get("output")]
        source = entry.get("source")
        as_of = _text(entry.get("as_of", file_date))
        numbers = [
            float(v)
            for v in values
            if isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < math.inf
        ]
        if len(numbers) != 2:
            raise PriceError(f"{where}: {name!r} needs `input` and `output` dollars (>= 0)")
        if not isinstance(source, str) or not source.strip():
            raise PriceError(f"{where}: {name!r} needs a `source` (where the price was read)")
        if as_of is None:
            raise PriceError(f"{where}: the `as_of` of {name!r} is not a date (YYYY-MM-DD)")
        prices[name] = Price(numbers[0], numbers[1])
        origins[name] = PriceOrigin(source.strip(), as_of)
    return PriceTable(prices, origins)


@cache
def _price_list() -> PriceTable:
    return load_price_list()


def default_prices() -> PriceTable:
    """The app's dated price list (read once)."""
    return _price_list()


#: the listed prices by model name (the dialog offers these names)
DEFAULT_PRICES: Mapping[str, Price] = default_prices().prices


def parse_price(text: str) -> Price:
    """``"2.5,10"`` (input, output in USD per million tokens) as a Price."""
    parts = [part.strip() for part in text.split(",")]
    try:
        values = [float(part) for part in parts]
    except ValueError:
        values = []
    if len(values) != 2 or any(v < 0 or not math.isfinite(v) for v in values):
        raise PriceError(
            f"a price is INPUT,OUTPUT in US dollars per million tokens (like 2.5,10), not {text!r}"
        )
    return Price(values[0], values[1])


def load_prices(path: Path, base: PriceTable | None = None) -> PriceTable:
    """The user's prices from a JSON file ``{"model": [input, output], ...}`` (or
    ``{"model": {"input": x, "output": y}}``), on top of ``base`` (each overrides it)."""
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise PriceError(f"cannot read prices from {path}: {error}") from error
    if not isinstance(raw, dict):
        raise PriceError(f"{path}: expected a JSON object of model -> price")
    prices = base or PriceTable({})
    for model, value in raw.items():
        if isinstance(value, dict):
            value = [value.get("input"), value.get("output")]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int | float) and v >= 0 for v in value)
        ):
            raise PriceError(f"{path}: the price of {model!r} must be [input, output] dollars")
        prices = prices.with_price(model, Price(float(value[0]), float(value[1])), str(path))
    return prices


def text_tokens(text: str) -> int:
    """A token estimate for text: about four characters a token in English, as OpenAI's own
    rule of thumb says. Only used for estimates; real counts come from the endpoint."""
    return math.ceil(len(text) / 4)


def image_tokens(width: int, height: int, max_side: int) -> int:
    """OpenAI's published count for a high-detail image of this size after our resize: fit in
    2048 x 2048, shortest side at most 768, then 170 tokens per 512-pixel tile plus 85."""
    width, height = fitted_size(width, height, max_side)
    width, height = fitted_size(width, height, 2048)
    shortest = min(width, height)
    if shortest > 768:
        scale = 768 / shortest
        width, height = round(width * scale), round(height * scale)
    tiles = math.ceil(width / 512) * math.ceil(height / 512)
    return 85 + 170 * tiles


#: what chat formatting adds per message, in tokens (role markers)
MESSAGE_OVERHEAD_TOKENS = 4


@dataclass(frozen=True)
class CostEstimate:
    """What a run is expected to send and cost, before it starts."""

    requests: int
    cached: int
    already_judged: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    price: Price | None
    #: where ``price`` comes from (the dated list, or the user)
    price_origin: PriceOrigin | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cached": self.cached,
            "already_judged": self.already_judged,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "price_per_million": None
            if self.price is None
            else {"input": self.price.input_per_million, "output": self.price.output_per_million},
            "price_origin": None if self.price_origin is None else self.price_origin.as_dict(),
        }
