"""Settings from the environment read the same way in every layer (service/env.py)."""

from __future__ import annotations

import pytest

from service import env

NAME = "BATAYO_TEST_SETTING_ONLY"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("1", True),
        ("TRUE", True),
        (" yes ", True),
        ("on", True),
        ("0", False),
        ("", False),
        ("nah", False),
    ],
)
def test_flag(monkeypatch, raw, expected):
    monkeypatch.setenv(NAME, raw)
    assert env.flag(NAME) is expected


@pytest.mark.parametrize(
    "raw, number, integer",
    [("", 7.0, 7), ("2.5", 2.5, 7), ("3", 3.0, 3), ("-4", 0.0, 0), ("x", 7.0, 7)],
)
def test_counts_and_numbers_are_at_least_zero_and_a_bad_value_is_the_default(
    monkeypatch, raw, number, integer
):
    monkeypatch.setenv(NAME, raw)
    assert env.number(NAME, 7.0) == number and env.integer(NAME, 7) == integer


def test_seconds_or_off(monkeypatch):
    monkeypatch.setenv(NAME, "")
    assert env.seconds(NAME, 60.0) == 60.0
    for off in ("off", "Never", "none"):
        monkeypatch.setenv(NAME, off)
        assert env.seconds(NAME, 60.0) is None
    monkeypatch.setenv(NAME, "1.5")
    assert env.seconds(NAME, 60.0) == 1.5
    for bad in ("-1", "soon"):
        monkeypatch.setenv(NAME, bad)
        with pytest.raises(ValueError):
            env.seconds(NAME, 60.0)
