"""Keep the garbage collector off the objects of loaded models.

A model load leaves millions of long-lived Python objects (torch modules, tokenizer tables, spaCy
vocabularies). CPython's full (generation 2) collection walks all of them: measured here at about
280 ms, once every few hundred searches — a pause at p99 of every call that happens to trigger it.
After a model is loaded, ``settle()`` collects once and moves everything alive to the permanent
generation (``gc.freeze``), which later collections skip. Objects created afterwards are collected
as usual. The freeze is process-wide: an object of the host application that was alive at load
time and later becomes garbage is still freed by reference counting, but not if it sits in a
reference cycle (that memory stays until exit) — the price of no 280 ms pauses, paid once per
model load.
"""

from __future__ import annotations

import gc

__all__ = ["settle"]


def settle() -> None:
    gc.collect()
    gc.freeze()
