"""Windows of facts (ingest.windows): cut at episode ends, each window's back half run in a worker
thread (``Overlap``), and the windows' results back in order."""

from __future__ import annotations

import threading
import time

import pytest

from fleet_memory.ingest.records import ExtractedFact
from fleet_memory.ingest.windows import BACK_WORKERS, Overlap, fact_windows, window_size

def _facts(*per_episode: int) -> list[ExtractedFact]:
    return [ExtractedFact(e, f"fact {e}.{i}", "episodic") for e, n in enumerate(per_episode) for i in range(n)]


def _sizes(windows):
    return [len(w) for w in windows]


def test_windows_end_with_an_episode_and_hold_at_least_the_size():
    windows = fact_windows(_facts(2, 3, 1, 4, 2, 2, 1), 4)
    assert _sizes(windows) == [5, 5, 5]
    assert all(w[-1].episode_index != n[0].episode_index for w, n in zip(windows, windows[1:]))
    assert [f for w in windows for f in w] == _facts(2, 3, 1, 4, 2, 2, 1)


def test_small_puts_and_one_long_episode_are_one_window():
    assert _sizes(fact_windows(_facts(3, 2), 4)) == [5]
    assert _sizes(fact_windows(_facts(40), 4)) == [40]
    assert fact_windows([], 4) == []


def test_a_short_tail_joins_the_window_before_it():
    assert _sizes(fact_windows(_facts(4, 4, 1), 4)) == [4, 5]


def test_windows_handed_over_run_in_the_worker_threads_and_come_back_in_order():
    caller = threading.current_thread().name
    ran: list[str] = []

    def embed(window: tuple[ExtractedFact, ...]) -> tuple[str, ...]:
        ran.append(threading.current_thread().name)
        return tuple(f.text.upper() for f in window)

    windows = fact_windows(_facts(*[2] * 6), 4)
    with Overlap(BACK_WORKERS) as overlap:
        for window in windows:
            overlap.submit(embed, window)
        many = overlap.results()
    assert [t for w in many for t in w] == [f.text.upper() for f in _facts(*[2] * 6)]
    assert len(windows) == 3 and 1 <= len(set(ran)) <= BACK_WORKERS and caller not in ran
    ran.clear()
    with Overlap(BACK_WORKERS, inline=True) as overlap:  # one window: in the caller's thread
        overlap.submit(embed, tuple(_facts(*[2] * 6)))
        one = overlap.results()
    assert ran == [caller] and [t for w in one for t in w] == [t for w in many for t in w]


def _eventually(condition) -> None:
    deadline = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold within 5 s"
        time.sleep(0.005)


def test_a_window_is_alone_once_the_windows_are_handed_over_and_no_other_is_left():
    first, second = threading.Event(), threading.Event()
    with Overlap(BACK_WORKERS) as overlap:
        overlap.submit(first.wait, 5)
        overlap.submit(lambda: second.wait(5) and overlap.alone())
        assert not overlap.alone()  # the caller still hands windows over (still parsing)
        overlap.handed_over()
        assert not overlap.alone()  # another window waits or is being embedded
        first.set()
        _eventually(overlap.alone)  # the second window is left alone: every core is its
        second.set()
        assert overlap.results() == [True, True]
    assert Overlap(BACK_WORKERS, inline=True).alone()  # a put of one window


def test_an_error_in_the_worker_reaches_the_caller():
    def embed(window):
        raise ValueError("embedding failed")

    with pytest.raises(ValueError, match="embedding failed"), Overlap(BACK_WORKERS) as overlap:
        for window in fact_windows(_facts(3, 3, 3, 3), 3):
            overlap.submit(embed, window)
        overlap.results()


def test_a_short_put_is_cut_in_about_three_windows_a_long_one_in_windows_of_the_largest_size():
    assert window_size(45) == 15  # one session of long assistant turns: three windows
    assert window_size(20) == 12  # under twice the smallest: fact_windows keeps one window
    assert fact_windows(_facts(*[5] * 4), window_size(20)) == [tuple(_facts(*[5] * 4))]
    assert window_size(1_000) == 96 and window_size(300) == 96
    assert window_size(45, largest=4) == 4  # the largest caps the smallest
    windows = fact_windows(_facts(*[6] * 8), window_size(48))
    assert [len(w) for w in windows] == [18, 18, 12]


def test_an_episode_longer_than_the_cut_is_cut_into_windows_of_the_cut():
    assert _sizes(fact_windows(_facts(10), 4, cut=4)) == [4, 4, 2]
    assert _sizes(fact_windows(_facts(3, 10, 2), 4, cut=5)) == [5, 5, 5]
    assert [f for w in fact_windows(_facts(3, 10, 2), 4, cut=5) for f in w] == _facts(3, 10, 2)
    assert _sizes(fact_windows(_facts(40), 4)) == [40]  # under the default cut: one window
