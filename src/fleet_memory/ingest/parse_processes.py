"""The parse of a large put in worker processes of lower priority (``ProcessNLP``).

A put of hundreds of kilobytes is mostly spaCy's parse (``docs/benchmarks.md``, the worst put).
Parsed on threads of the serving process, it holds the interpreter's lock for much of that time,
and every other request waits for the lock between its own steps. In worker processes the parse
takes no lock of ours, uses every core it is given, and yields the CPU first: the workers run at
a lower scheduling priority (``nice``), so a search that needs a core is scheduled before them,
and the put takes what the other requests leave. What one agent's 2 MB put still costs the
others' tail latency is in ``docs/benchmarks.md`` (Noisy neighbours).

Only calls of ``PARALLEL_MIN`` texts or more go to the workers (a chat turn or a short document
is parsed in the caller's process, where the hand-over would cost more than it saves). The
workers start on the first such call (spaCy loads in each: a few seconds) and stay until
``close``; a worker whose parent died (SIGKILL closes nothing) exits within ``PARENT_CHECK_S``.
A parse depends on its text alone, so the records are those of the caller's own parse (a test
compares them). When the workers cannot start or die, the call is parsed in the caller's process
instead and the failure is logged; so is every large call for the next ``RETRY_AFTER_S``, after
which new workers are started (a worker killed once, say by the kernel's out-of-memory killer,
does not leave the server parsing in its own process for good).

The workers are started with ``spawn``, never ``fork`` (forking a process with threads is unsafe),
so starting them imports the host's main module again: only the command line's entry points,
which own their process (``fleet-memory serve``, ``mcp``, every command), turn them on
(``Config.parse_processes``; ``cli.common.open_memory``).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..providers.nlp import PARALLEL_MIN, Parsed, SpacyNLP

__all__ = ["CHUNK_TEXTS", "PARENT_CHECK_S", "RETRY_AFTER_S", "WORKER_NICE", "ProcessNLP"]

_log = logging.getLogger(__name__)

CHUNK_TEXTS = 1_024  # texts per hand-over to a worker
WORKER_NICE = 10  # added to the workers' scheduling niceness: the serving process goes first
PARENT_CHECK_S = 1.0  # how often a worker checks that its parent still runs
RETRY_AFTER_S = 60.0  # after the workers failed, large calls are parsed in the caller's process this long

_worker_nlp: SpacyNLP | None = None  # in a worker process: its own model


def _start_worker(model: str | None, batch_size: int, nice: int) -> None:
    global _worker_nlp
    if nice:
        os.nice(nice)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="fleet-memory-parent-watch",
                     daemon=True).start()
    _worker_nlp = SpacyNLP(model, batch_size=batch_size, threads=1)
    _worker_nlp.parse(["Warm up."])


def _exit_with_parent(parent: int) -> None:
    """In a worker: exit once the process that started it is gone (killed with SIGKILL, it closes
    nothing; the worker, handed over to init, would otherwise wait for work forever)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _parse_in_worker(texts: Sequence[str]) -> list[Parsed]:
    assert _worker_nlp is not None
    return _worker_nlp.parse(texts)


class ProcessNLP:
    """``nlp``, with calls of ``PARALLEL_MIN`` texts or more parsed by ``processes`` worker
    processes (each its own ``nlp.model_name`` model) niced by ``nice``."""

    def __init__(self, nlp: SpacyNLP, processes: int, *, nice: int = WORKER_NICE) -> None:
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        self.nlp, self.processes, self.nice = nlp, processes, nice
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._failed_at: float | None = None  # time.monotonic() of the last failure

    @property
    def model_name(self) -> str | None:
        return self.nlp.model_name

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        if len(texts) < PARALLEL_MIN or self._cooling():
            return self.nlp.parse(texts)
        chunks = [texts[i:i + CHUNK_TEXTS] for i in range(0, len(texts), CHUNK_TEXTS)]
        try:
            return [record for parsed in self._workers().map(_parse_in_worker, chunks) for record in parsed]
        except (BrokenProcessPool, OSError) as exc:
            self._give_up(exc)
            return self.nlp.parse(texts)

    def _workers(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                    initargs=(self.nlp.model_name, self.nlp.batch_size, self.nice))
            return self._pool

    def _cooling(self) -> bool:
        failed = self._failed_at
        return failed is not None and time.monotonic() - failed < RETRY_AFTER_S

    def _give_up(self, exc: BaseException) -> None:
        with self._lock:
            self._failed_at = time.monotonic()
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        _log.warning("fleet-memory: the parse workers failed (%s: %s); large puts are parsed in this process for "
                     "the next %g s", type(exc).__name__, exc, RETRY_AFTER_S)

    def close(self) -> None:
        """Stop the workers (a later large call starts them again)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
