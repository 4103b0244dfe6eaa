"""Prices, token estimates, and the estimate shown before a run."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from workbench.judge.calls import JudgeCall
from workbench.judge.cases import ImageRef
from workbench.judge.cost import (
    Price,
    PriceError,
    default_prices,
    image_tokens,
    load_price_list,
    load_prices,
    parse_price,
    text_tokens,
)


def test_dated_model_names_take_the_longest_listed_prefix() -> None:
    prices = default_prices()
    assert prices.for_model("gpt-4o-mini-2024-07-18") == prices.for_model("gpt-4o-mini")
    assert prices.for_model("gpt-4o-2024-08-06") == prices.for_model("gpt-4o")
    assert prices.for_model("gpt-4o-mini") != prices.for_model("gpt-4o")
    assert prices.for_model("llava-local") is None
    assert prices.with_price("llava-local", Price(0, 0)).for_model("llava-local") == Price(0, 0)


def test_price_arithmetic_and_parsing() -> None:
    assert Price(2.5, 10).cost(1_000_000, 100_000) == pytest.approx(3.5)
    assert parse_price(" 0.15 , 0.6 ") == Price(0.15, 0.6)
    for bad in ("1", "a,b", "-1,2", "1,2,3", "nan,1"):
        with pytest.raises(PriceError):
            parse_price(bad)


def test_price_files(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"my-judge": [1, 4], "other": {"input": 0.5, "output": 1}}))
    prices = load_prices(path, default_prices())
    assert prices.for_model("my-judge") == Price(1, 4)
    assert prices.for_model("other") == Price(0.5, 1)
    assert prices.for_model("gpt-4o") is not None
    path.write_text(json.dumps({"bad": [1]}))
    with pytest.raises(PriceError, match="bad"):
        load_prices(path)


def test_token_estimates() -> None:
    assert text_tokens("") == 0 and text_tokens("abcde") == 2
    # OpenAI's published examples: 1024 x 1024 is 765 tokens, 2048 x 4096 is 1105
    assert image_tokens(1024, 1024, 4096) == 765
    assert image_tokens(2048, 4096, 4096) == 1105
    # our resize comes first: 2048 x 4096 sent at most 1024 on the long side
    assert image_tokens(2048, 4096, 1024) == 85 + 170 * 2


def test_a_call_estimate_adds_text_and_images() -> None:
    image = ImageRef(0, 1, "ab" * 32, 1024, 1024)
    call = JudgeCall("m", "s" * 40, "u" * 400, 0.0, 100, images=(image,), max_image_side=4096)
    assert call.estimated_prompt_tokens == 10 + 100 + 8 + 765
    text_only = JudgeCall("m", "s" * 40, "u" * 400, 0.0, 100)
    assert text_only.hash != call.hash
    assert text_only.hash == JudgeCall("m", "s" * 40, "u" * 400, 0.0, 100).hash
    assert text_only.hash != JudgeCall("m", "s" * 40, "u" * 400, 0.5, 100).hash


def test_the_shipped_price_list_is_dated_and_sourced() -> None:
    prices = default_prices()
    assert prices.prices, "the price list is empty"
    for model in prices.prices:
        origin = prices.origin_for(model)
        assert origin is not None and not origin.by_user
        assert origin.source.startswith("https://")
        assert origin.as_of is not None and date.fromisoformat(origin.as_of) <= date.today()
    # a dated model name cites the entry it was priced by
    assert prices.origin_for("gpt-4o-2024-08-06") == prices.origin_for("gpt-4o")


def test_a_price_given_by_the_user_overrides_the_list_and_says_so() -> None:
    listed = default_prices()
    mine = listed.with_price("gpt-4o-mini", Price(1, 2), "--price")
    assert mine.for_model("gpt-4o-mini") == Price(1, 2)
    origin = mine.origin_for("gpt-4o-mini")
    assert origin is not None and origin.by_user
    assert "--price" in origin.describe() and "overriding the list price $0.15/$0.6" in (
        origin.describe()
    )
    # a model the list does not price: the user's price overrides nothing
    local = listed.with_price("llava-local", Price(0, 0), "--price").origin_for("llava-local")
    assert local is not None and "overriding" not in local.describe()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[models."m"]\ninput = 1\noutput = 2\nsource = "x"\n', "as_of"),
        ('as_of = "soon"\n[models."m"]\ninput = 1\noutput = 2\nsource = "x"\n', "as_of"),
        ("as_of = 2025-01-01\n", "no \\[models"),
        ('as_of = 2025-01-01\n[models."m"]\ninput = 1\noutput = 2\n', "needs a `source`"),
        ('as_of = 2025-01-01\n[models."m"]\ninput = -1\noutput = 2\nsource = "x"\n', "input"),
        ('as_of = 2025-01-01\n[models."m"]\ninput = 1\nsource = "x"\n', "output"),
        ("as_of = [", "cannot read"),
    ],
)
def test_a_bad_price_list_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(PriceError, match=message):
        load_price_list(path)


def test_an_entry_may_carry_its_own_date(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(
        'as_of = 2025-01-01\n[models."a"]\ninput = 1\noutput = 2\nsource = "s"\n'
        '[models."b"]\ninput = 1\noutput = 2\nsource = "t"\nas_of = "2025-02-03"\n'
    )
    prices = load_price_list(path)
    assert [prices.origins[m].as_of for m in ("a", "b")] == ["2025-01-01", "2025-02-03"]
