"""Keep the garbage collector off the objects of loaded models — for processes fleet-memory owns.

A model load leaves millions of long-lived Python objects (torch modules, tokenizer tables, spaCy
vocabularies). CPython's full (generation 2) collection walks all of them: measured here at about
280 ms, once every few hundred searches — a pause at p99 of every call that happens to trigger it.
After the models are loaded (``FleetMemory.warm_up``), ``settle()`` collects once and moves
everything alive to the permanent generation (``gc.freeze``), which later collections skip.
Objects created afterwards are collected as usual.

The freeze is process-wide (an object alive at that moment that later becomes garbage in a
reference cycle stays until exit), so the library never calls it: only the entry points that own
their process do — ``fleet-memory serve`` and ``fleet-memory mcp``, and the benchmarks. A host
program that embeds the library may call it itself after ``warm_up``.
"""

from __future__ import annotations

import gc

__all__ = ["settle"]


def settle() -> None:
    gc.collect()
    gc.freeze()
