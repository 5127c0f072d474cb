"""Run the same job on several threads that start together (a barrier), for races."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

__all__ = ["run_together"]


def run_together(job: Callable[[Callable[[], None]], T], count: int = 2, timeout: float = 60) -> list[T]:
    """Call ``job(wait)`` on ``count`` threads; each calls ``wait()`` when ready, and all go on at
    once. Returns the results; re-raises the first error any thread met."""
    barrier = threading.Barrier(count)
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(job(lambda: barrier.wait(timeout=timeout)))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results
