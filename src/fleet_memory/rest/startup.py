"""Start-up of a server process we own: listen first, load the models behind it.

``serve`` opens the database (seconds at most: the embedded PostgreSQL is started or joined, the
migrations are checked) before it listens, then loads the models on a background thread
(``FleetMemory.warm_up``: the embedder and spaCy in parallel), collects and freezes the heap
(``providers.heap``), and only then says it is ready. Meanwhile:

- ``/health`` (liveness) answers at once; ``/health/ready`` answers 503 "starting" with the
  phases done so far, 200 "ready" once the models are loaded, 503 "failed" if a load failed.
- A request that needs a model waits for it (the providers load under a lock, so a search
  arriving during the load is answered when the embedder is in, a put when spaCy is too):
  nothing is refused with a 5xx for being early, and nothing is answered from a half-loaded
  model. Requests that need no model (export, stats, listing) are answered at once.

``phases`` holds seconds since the process started (``process_seconds``) at each milestone, for
``/health/ready`` and ``bench/soak.py``.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from ..providers import heap

if TYPE_CHECKING:
    from ..memory import FleetMemory

__all__ = ["Startup", "process_seconds"]

_log = logging.getLogger(__name__)


def process_seconds() -> float | None:
    """Seconds since this process started (Linux ``/proc``), or None where that is unknown."""
    try:
        with open("/proc/self/stat") as f:
            started_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return round(uptime - started_ticks / os.sysconf("SC_CLK_TCK"), 3)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class Startup:
    """Milestones of one server start and whether it can serve yet."""

    def __init__(self) -> None:
        self.phases: dict[str, float | None] = {}
        self.ready = threading.Event()
        self.error: str | None = None

    def mark(self, name: str) -> None:
        self.phases[name] = process_seconds()

    @property
    def status(self) -> str:
        return "ready" if self.ready.is_set() else "failed" if self.error else "starting"

    def finish(self) -> None:
        """Ready without loading anything (a memory handed in by the caller, tests)."""
        self.ready.set()

    def warm_in_background(self, memory: FleetMemory) -> threading.Thread:
        """Load the models, settle the heap, then be ready."""

        def loaded(name: str) -> None:
            self.mark(name)
            if name == "nlp":
                heap.settle()
                self.mark("settled")
                self.ready.set()

        def run() -> None:
            try:
                memory.warm_up(loaded)
            except Exception as exc:  # reported by /health/ready; each request reports its own error
                self.error = f"{type(exc).__name__}: {exc}"
                _log.error("fleet-memory: loading the models failed: %s", self.error)

        thread = threading.Thread(target=run, name="fleet-memory-warm-up", daemon=True)
        thread.start()
        return thread
