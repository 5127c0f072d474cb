"""Settle a process that fleet-memory owns for serving: the collector off the loaded models, full
collections rare, and the interpreter lock handed over often.

- **Freeze.** A model load leaves millions of long-lived objects (torch modules, tokenizer tables,
  spaCy vocabularies) that every full collection walks: about 280 ms, at p99 of the call that
  triggers it. After the models are loaded (``FleetMemory.warm_up``), ``settle()`` collects once and
  moves everything alive to the permanent generation (``gc.freeze``), which collections skip.
- **Thresholds.** The largest put the limits allow keeps about a million objects alive. With the
  default thresholds a full collection walked them every few seconds, 50–130 ms each with every
  thread stopped. ``GC_THRESHOLDS`` collects the youngest generation every 20,000 allocations
  instead of 700, the older ones correspondingly rarely; cyclic garbage still goes at the next
  collection of its generation.
- **Switch interval.** A thread waiting for the interpreter lock behind one running Python (a put
  resolving entities) gets it after the switch interval, 5 ms by default, once per hand-over, and a
  search makes dozens. ``SWITCH_INTERVAL_S`` (1 ms) bounds that wait.

These are process-wide, so the library never calls ``settle``: only the entry points that own their
process do (``fleet-memory serve``, ``fleet-memory mcp``, the benchmarks). A host program that embeds
the library may call it after ``warm_up``. Effect during a flood: ``docs/benchmarks.md`` (Noisy
neighbours).
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
