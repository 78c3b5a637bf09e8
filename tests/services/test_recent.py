"""The routes' memo of recent answers: bounded, most recently used kept, failures never kept."""

from __future__ import annotations

import threading

import pytest

from ridgeline.services.recent import RecentAnswers


def test_the_most_recently_used_answers_are_kept_and_the_oldest_dropped() -> None:
    computed: list[str] = []
    recent: RecentAnswers[str, str] = RecentAnswers(2)

    def answer(key: str) -> str:
        return recent.get(key, lambda: computed.append(key) or key.upper())

    assert [answer("a"), answer("b"), answer("a")] == ["A", "B", "A"]
    assert computed == ["a", "b"]
    answer("c")  # drops b, the least recently used: a was used after it
    assert len(recent) == 2
    answer("a")
    answer("b")
    assert computed == ["a", "b", "c", "b"]


def test_an_answer_whose_computation_failed_is_computed_again() -> None:
    recent: RecentAnswers[str, int] = RecentAnswers(4)
    attempts: list[int] = []

    def flaky() -> int:
        attempts.append(1)
        if len(attempts) == 1:
            raise KeyError("no run 'x'")
        return 7

    with pytest.raises(KeyError):
        recent.get("x", flaky)
    assert len(recent) == 0
    assert recent.get("x", flaky) == 7
    assert recent.get("x", flaky) == 7
    assert len(attempts) == 2


def test_a_slow_answer_does_not_hold_up_another_key() -> None:
    recent: RecentAnswers[str, str] = RecentAnswers(4)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        assert release.wait(60)
        return "slow"

    worker = threading.Thread(target=recent.get, args=("slow", slow))
    worker.start()
    assert started.wait(60)
    assert recent.get("fast", lambda: "fast") == "fast"  # would deadlock if the lock were held while computing
    release.set()
    worker.join(60)
    assert recent.get("slow", lambda: "again") == "slow"


def test_capacity_must_keep_something() -> None:
    with pytest.raises(ValueError, match="capacity"):
        RecentAnswers(0)
