"""Run lifecycle jobs on an interval inside a long-running process.

A ``LifecycleScheduler`` owns one daemon thread that runs its jobs (plain callables, e.g. the
facade's ``maintain`` and ``consolidate``) one after the other, then waits ``interval_s`` on an
event, so ``stop()`` returns promptly instead of sleeping out the interval. A job that raises is
logged and recorded in ``last_errors``; the next round runs anyway. The jobs themselves take
their "now" from the facade's injectable clock, and are idempotent and safe alongside another
process running them, so a scheduler in each of several processes is harmless. ``run_once()``
runs one round in the calling thread (for tests and the CLI).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["LifecycleScheduler", "standard_jobs"]

_log = logging.getLogger(__name__)


class LifecycleScheduler:
    def __init__(self, jobs: Sequence[tuple[str, Callable[[], Any]]], interval_s: float,
                 *, on_round: Callable[[dict[str, Any]], None] | None = None) -> None:
        if not interval_s > 0:
            from ..errors import InvalidInputError

            raise InvalidInputError("interval_s", f"must be positive, got {interval_s!r}", "> 0 seconds")
        self.jobs = tuple(jobs)
        self.interval_s = float(interval_s)
        self.on_round = on_round
        self.rounds = 0
        self.last_results: dict[str, Any] = {}
        self.last_errors: dict[str, BaseException] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run_once(self) -> dict[str, Any]:
        """Run every job once, in order; return each job's result (or the exception it raised)."""
        results: dict[str, Any] = {}
        errors: dict[str, BaseException] = {}
        with self._lock:
            for name, job in self.jobs:
                try:
                    results[name] = job()
                except Exception as exc:  # noqa: BLE001 - logged and kept; the loop must go on
                    _log.exception("lifecycle job %s failed", name)
                    errors[name] = exc
                    results[name] = exc
            self.rounds += 1
            self.last_results, self.last_errors = results, errors
        if self.on_round is not None:
            self.on_round(results)
        return results

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_once()
            self._stop.wait(self.interval_s)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> LifecycleScheduler:
        if self.running:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="fleet-memory-lifecycle", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        """Ask the loop to stop and wait for the round in progress to finish."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> LifecycleScheduler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def standard_jobs(
    maintain: Callable[[str | None], Any],
    consolidate: Callable[[str], Any],
    consolidation_agents: Callable[[], list[str]],
    agent_ids: Sequence[str] | None = None,
    *,
    with_consolidation: bool = True,
    index_agents: Callable[[], Any] | None = None,
) -> list[tuple[str, Callable[[], Any]]]:
    """The lifecycle round: maintenance (for ``agent_ids``, or every agent in one pass), then
    consolidation for ``agent_ids`` or every agent that has enough candidates, then (for the whole
    store only) ``index_agents``: large agents get their own indexes (``store.db.agent_indexes``)."""

    def run_maintain() -> Any:
        return maintain(None) if agent_ids is None else [maintain(a) for a in agent_ids]

    def run_consolidate() -> Any:
        agents = consolidation_agents() if agent_ids is None else list(agent_ids)
        return [consolidate(a) for a in agents]

    jobs: list[tuple[str, Callable[[], Any]]] = [("maintain", run_maintain)]
    if with_consolidation:
        jobs.append(("consolidate", run_consolidate))
    if index_agents is not None and agent_ids is None:
        jobs.append(("index_agents", index_agents))
    return jobs
