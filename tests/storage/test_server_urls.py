"""A server URL with a control character is refused before anything connects: ``%00`` ended
the string libpq was given, and the connection went to port 5432 as the operating-system
user."""

from __future__ import annotations

import pytest

from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleError


@pytest.mark.parametrize(
    ("url", "part"),
    [
        ("postgresql://team:secret@db.example.org:6543/bundle%00ignored", "database"),
        ("postgresql://team%00x:secret@db.example.org/bundle", "user name"),
        ("postgresql://team:sec%0Aret@db.example.org/bundle", "password"),
        ("postgresql://team@db.example.org/bundle?sslmode=require%00", "parameter 'sslmode'"),
    ],
)
def test_a_control_character_in_a_server_url_is_refused(url: str, part: str) -> None:
    with pytest.raises(BundleError, match=f"the {part} holds a control character") as caught:
        parse_location(url)
    assert "secret" not in str(caught.value)  # the password stays masked


def test_an_ordinary_server_url_is_accepted() -> None:
    location = parse_location("postgresql://team:secret@db.example.org:6543/bundle?sslmode=require")
    assert location.shown_url == "postgresql://team:***@db.example.org:6543/bundle?sslmode=require"
