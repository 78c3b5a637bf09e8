"""Sizes and durations as users type them (``--max-size 50GB``, ``--older-than 30d``), and the errors for the rest."""

from __future__ import annotations

import pytest

from ridgeline.retention.units import UnitError, format_duration, format_size, parse_duration, parse_size


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("50GB", 50 * 10**9),
        ("50 gb", 50 * 10**9),
        ("500MiB", 500 * 2**20),
        ("1.5TB", 1_500_000_000_000),
        ("2KiB", 2048),
        ("10kB", 10_000),
        ("1024", 1024),
        ("17B", 17),
    ],
)
def test_sizes_take_decimal_and_binary_units(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["50 gigs", "", "GB", "-5GB", "1e3", "5 GB extra", "5XB"])
def test_a_size_that_is_not_one_says_what_is(text: str) -> None:
    with pytest.raises(UnitError, match=r"is not a size: use a number and a unit, e\.g\. 50GB, 500MiB"):
        parse_size(text)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30d", 30 * 86400), ("12h", 12 * 3600), ("90m", 5400), ("45s", 45), ("2w", 14 * 86400), ("1d12h", 129600)],
)
def test_durations_take_weeks_to_seconds_and_combinations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(text.upper()) == seconds
    assert parse_duration("1.5h") == 5400


@pytest.mark.parametrize("text", ["30", "", "d", "3x", "-1d", "1d 2", "thirty days"])
def test_a_duration_without_a_unit_is_refused(text: str) -> None:
    """A plain number could be minutes or days: it is refused rather than guessed."""
    with pytest.raises(UnitError, match=r"is not a duration: use a number and a unit, e\.g\. 30d, 12h, 90m"):
        parse_duration(text)


def test_sizes_and_durations_read_back_for_people() -> None:
    assert [format_size(n) for n in (17, 512_000, 1_234_000_000, 150 * 10**9)] == ["17 B", "512 kB", "1.2 GB", "150 GB"]
    assert [format_duration(s) for s in (5, 60, 7200, 45 * 86400)] == ["5 seconds", "1 minute", "2 hours", "45 days"]
