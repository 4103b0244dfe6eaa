"""What the judge remembers between runs, in the ``judge`` part of the app's settings file
(:mod:`workbench.storage.app_settings`): the endpoint used last and, per endpoint, the judge
model, the price the user gave and the requests at once, so the dialog and the CLI start from
them. An endpoint is remembered by its public URL (no credentials, no query): never an API key.
With nothing remembered there is no default endpoint, so a hosted (paid) one is never used
without the user choosing it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from workbench.domain.settings import AppSettings, EndpointMemory, JudgeMemory
from workbench.judge.cost import Price
from workbench.judge.secrets import public_base_url
from workbench.storage.app_settings import load_settings, update_settings

log = logging.getLogger(__name__)

#: shown as an example where no endpoint is remembered (a local server costs nothing)
LOCAL_EXAMPLE = "http://127.0.0.1:8000/v1"
#: how a remembered price is named where an estimate says where its price came from
REMEMBERED_PRICE = "remembered for this endpoint"


@dataclass(frozen=True)
class LastUsed:
    base_url: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class Remembered:
    """What was used with one endpoint (nothing known: all None)."""

    model: str | None = None
    price: Price | None = None
    concurrency: int | None = None


def load_last_used() -> LastUsed:
    """The endpoint used last and its model; nothing when no run was started."""
    judge = load_settings().judge
    return LastUsed(judge.last_endpoint, judge.for_endpoint(judge.last_endpoint).model)


def remembered(base_url: str | None) -> Remembered:
    """What was used last with ``base_url`` (compared by its public URL)."""
    if not base_url:
        return Remembered()
    memory = load_settings().judge.for_endpoint(public_base_url(base_url))
    price = None if memory.price is None else Price(*memory.price)
    return Remembered(memory.model, price, memory.concurrency)


def remember_endpoint(
    base_url: str, model: str, price: Price | None = None, concurrency: int | None = None
) -> None:
    """Keep the endpoint (its public URL only) of a run that starts, as the last one, with its
    model, the user's price (None: the price list's or none) and concurrency."""
    url = public_base_url(base_url)
    memory = EndpointMemory(
        model,
        None if price is None else (price.input_per_million, price.output_per_million),
        concurrency,
    )

    def change(settings: AppSettings) -> AppSettings:
        endpoints = {**settings.judge.endpoints, url: memory}
        return settings.with_changes(judge=JudgeMemory(url, endpoints))

    update_settings(change)
