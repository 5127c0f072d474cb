"""Settle a process that fleet-memory owns for serving: the collector off the loaded models, full
collections rare, and the interpreter lock handed over often.

- **Freeze.** A model load leaves millions of long-lived Python objects (torch modules, tokenizer
  tables, spaCy vocabularies). CPython's full (generation 2) collection walks all of them: measured
  here at about 280 ms, once every few hundred searches — a pause at p99 of every call that happens
  to trigger it. After the models are loaded (``FleetMemory.warm_up``), ``settle()`` collects once
  and moves everything alive to the permanent generation (``gc.freeze``), which later collections
  skip.
- **Thresholds.** The largest put the limits allow keeps about a million objects alive while it
  runs (parse records, drafts, rows). With CPython's default thresholds a full collection walked
  them every few seconds, 50–130 ms each with every thread stopped, and the other agents' searches
  stalled behind them. ``GC_THRESHOLDS`` collects the youngest generation every 20,000 allocations
  instead of 700 and the older ones correspondingly rarely. Garbage in reference cycles still goes
  at the next collection of its generation.
- **Switch interval.** A thread waiting for the interpreter lock behind a thread running Python (a
  put resolving entities) gets it after the switch interval, CPython's 5 ms, once for every hand
  over: a search makes dozens (each statement gives the lock up while it waits for the database).
  ``SWITCH_INTERVAL_S`` (1 ms) bounds that wait.

These are process-wide (a frozen object that later becomes cyclic garbage stays until exit; the
thresholds and the interval apply to every thread), so the library never calls ``settle``: only the
entry points that own their process do — ``fleet-memory serve`` and ``fleet-memory mcp``, and the
benchmarks. A host program that embeds the library may call it itself after ``warm_up``. What it
changes for the other agents during a flood: ``docs/benchmarks.md`` (Noisy neighbours).
"""

from __future__ import annotations

import gc
import sys

__all__ = ["GC_THRESHOLDS", "SWITCH_INTERVAL_S", "settle"]

GC_THRESHOLDS = (20_000, 50, 100)
SWITCH_INTERVAL_S = 0.001


def settle() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
