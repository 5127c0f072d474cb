"""Windows of a put's facts, and the worker threads that embed them while the next window is parsed.

After extraction the facts are cut into windows of about ``WINDOW_FACTS`` facts — a put of fewer
than three times that into about three windows of at least ``MIN_WINDOW_FACTS`` (``window_size``)
—, each ending where an episode ends, except that a longer episode is cut into windows of
``EPISODE_CUT_FACTS`` facts (``EPISODE_CUT_FACTS_WORKERS`` when parse workers run,
``ingest.parse_processes``): a window's parse records are let go when it is done, so a put of
megabytes never holds them all at once — the garbage collector's full passes walk every live
record and stop every thread: in a 2 MB put, uncut, up to 0.37 s each; cut at 8,192 facts 0.14 s;
at 2,048, 0.05 s. In the caller's process the smaller cut made the same put 20 % slower (each
window's parse on two threads beside the previous window's embedding), so it is taken only when
the parse runs in workers. Coreference, names and unit plans carry over a cut
(``validate.UnitPlanner``). The caller's thread parses … assembles
window by window and hands each window's drafts to an ``Overlap``: ``BACK_WORKERS`` worker threads
that embed them, a window each, on one torch thread each — so the two cores are both busy, with
spaCy while it parses and with two windows once it is done — and with all of them for a window
left alone at the end (``Overlap.alone``). A put of one window runs everything in the caller's
thread. The windows' results come back in window order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

from .records import ExtractedFact

__all__ = ["BACK_WORKERS", "EPISODE_CUT_FACTS", "EPISODE_CUT_FACTS_WORKERS", "MIN_WINDOW_FACTS", "WINDOW_FACTS", "Overlap", "fact_windows", "window_size"]

T = TypeVar("T")

WINDOW_FACTS = 96
MIN_WINDOW_FACTS = 12
EPISODE_CUT_FACTS = 8_192
EPISODE_CUT_FACTS_WORKERS = 2_048
BACK_WORKERS = 2
"""Worker threads of an ``Overlap``: two windows are embedded at once, each on one torch thread,
which uses both cores better than one window on two torch threads (measured here, 180 turns:
1.31–1.44 s on two workers of one thread, 1.45–2.17 s on one of two, 2.9–3.0 s on one of one)."""


def window_size(facts: int, largest: int = WINDOW_FACTS, smallest: int = MIN_WINDOW_FACTS) -> int:
    """Facts per window for a put of ``facts`` facts: ``largest`` for a long put; a shorter one is
    cut in about three windows of at least ``smallest`` (never more than ``largest``), so that a
    put of a few dozen facts — one session of long assistant turns — overlaps parse and embedding
    too instead of running them one after the other."""
    return min(largest, max(smallest, facts // 3))


def fact_windows(facts: Sequence[ExtractedFact], size: int,
                 cut: int = EPISODE_CUT_FACTS) -> list[tuple[ExtractedFact, ...]]:
    """``facts`` cut into runs of at least ``size`` facts (the last may be shorter), each ending
    where an episode ends or after ``cut`` facts. One run when there are fewer than ``2 * size``
    facts and no more than ``cut``."""
    if len(facts) < 2 * size and len(facts) <= cut:
        return [tuple(facts)] if facts else []
    windows: list[tuple[ExtractedFact, ...]] = []
    start = 0
    for i in range(1, len(facts) + 1):
        ends_episode = i == len(facts) or facts[i].episode_index != facts[i - 1].episode_index
        if (ends_episode and (i - start >= size or i == len(facts))) or i - start >= cut:
            windows.append(tuple(facts[start:i]))
            start = i
    if len(windows) > 1 and len(windows[-1]) < size // 2:
        windows[-2:] = [windows[-2] + windows[-1]]
    return windows


class Overlap(Generic[T]):
    """The back half of each window (``submit``), in ``workers`` threads while the caller's thread
    goes on with the next window; ``inline``: in the caller's thread, at once (a put of one window).
    Leaving the block waits for every window handed over; an error in a worker reaches the caller
    in ``results``."""

    def __init__(self, workers: int, *, inline: bool = False) -> None:
        self._pool = None if inline else ThreadPoolExecutor(workers, thread_name_prefix="fleet-memory-embed")
        self._pending: list[Future[T]] = []
        self._left = 0
        self._lock = threading.Lock()
        self._front_done = threading.Event()
        if inline:
            self._front_done.set()

    def __enter__(self) -> Overlap[T]:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.handed_over()
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def submit(self, work: Callable[..., T], *args: object) -> None:
        """``work(*args)`` in a worker thread (in this one when inline)."""
        if self._pool is None:
            done: Future[T] = Future()
            done.set_result(work(*args))
            self._pending.append(done)
            return
        with self._lock:
            self._left += 1
        self._pending.append(self._pool.submit(self._run, work, args))

    def _run(self, work: Callable[..., T], args: tuple[object, ...]) -> T:
        try:
            return work(*args)
        finally:
            with self._lock:
                self._left -= 1

    def handed_over(self) -> None:
        """The caller's thread hands over no more windows."""
        self._front_done.set()

    def alone(self) -> bool:
        """The caller's thread is done handing over windows and no other window is waiting or being
        worked on: the one asking may use every core."""
        return self._front_done.is_set() and self._left <= 1

    def results(self) -> list[T]:
        """Every window's result, in the order handed over (the caller is done handing over)."""
        self.handed_over()
        return [future.result() for future in self._pending]
