"""Arithmetic on the calling thread alone: torch's intra-op threads per calling thread
(``torch_threads``), and the similarity products of ingestion and consolidation (``product``).

Why not NumPy's ``@``: it hands a large product to OpenBLAS's thread pool, whose threads then
busy-wait for the next one and hold a core for a while after every call: after each put's read of
its nearest stored units (``store.linking.semantic``), the core PostgreSQL and the next put's stages
needed (figures: ``docs/benchmarks.md``). OpenBLAS's thread count is the process's
(``threadpoolctl`` sets it for everyone), which a library must leave to its host; torch's is set
per calling thread, so the product runs there on one thread, as the ingest stages' embeddings do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["product", "torch_threads"]


@contextmanager
def torch_threads(count: int | None) -> Iterator[None]:
    """torch's intra-op threads for the calling thread while inside; each thread has its own count
    (OpenMP's per-thread setting: one thread setting 1 leaves another's 2, checked in the tests), so
    concurrent calls do not change each other's, nor the host's."""
    if count is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` in ``a``'s precision (float32 or float64), on the calling thread alone."""
    import torch

    left = torch.from_numpy(np.ascontiguousarray(a))
    right = torch.from_numpy(np.ascontiguousarray(b, dtype=a.dtype))
    with torch.inference_mode(), torch_threads(1):
        return (left @ right.T).numpy()
