"""Loading the models ahead of the first request (``FleetMemory.warm_up``).

The embedder (torch and the MiniLM weights, ``providers.bert``) and spaCy (``en_core_web_sm``) are loaded
on two threads at once: much of both loads is C code reading files and building tensors, which
runs beside the other thread's Python, so the two loads overlap instead of adding up. Searches
need only the embedder, puts need both. ``on_loaded(name)`` is called as each is ready
("embedder", "nlp").

Bounds: one extra thread for the duration of the spaCy load; nothing is retried. An error in
either load is raised after both have finished.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from .embedder import Embedder
from .nlp import NLP

__all__ = ["load_models"]


def load_models(embedder: Embedder, nlp: NLP, on_loaded: Callable[[str], None] = lambda name: None) -> None:
    with ThreadPoolExecutor(1, thread_name_prefix="fleet-memory-load") as pool:
        parsed = pool.submit(nlp.parse, ["The models are loaded."])
        try:
            embedder.embed(["warm up", "the embedder"])
            on_loaded("embedder")
        finally:
            parsed.result()
        on_loaded("nlp")
