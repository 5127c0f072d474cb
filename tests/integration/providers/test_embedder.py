"""The real embedder: the lean encoder (``providers.bert``) gives sentence-transformers' vectors,
and a model it does not take is run by sentence-transformers itself, one text or many."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytestmark = pytest.mark.models

TEXTS = ["What does Alice do?", "ok", "Alice loves hiking in the mountains, mostly in Yosemite, every spring " * 8,
         "A very long note that runs past the model's 256-token window. " * 40]


@pytest.fixture(scope="module")
def st_model():
    """all-MiniLM-L6-v2 through sentence-transformers itself (the reference, and the path any
    model that is not a mean-pooled BERT takes)."""
    from sentence_transformers import SentenceTransformer

    from fleet_memory.providers.embedder import bundled_model_path

    return SentenceTransformer(bundled_model_path(), device="cpu", local_files_only=True)


MORE_TEXTS = TEXTS + ["", "Ünïcödé ☃ 日本語", "line\u2028separated", "x" * 5000]


def test_the_lean_encoder_gives_sentence_transformers_vectors(st_model) -> None:
    from fleet_memory.providers.bert import BertMeanPooled
    from fleet_memory.providers.embedder import SentenceTransformerEmbedder

    exact = SentenceTransformerEmbedder(precision="float32")
    exact.embed(["load"])
    assert isinstance(exact._model, BertMeanPooled), "the default model is a mean-pooled BERT"
    assert exact._model.precision == "float32"
    assert exact._model._run != exact._model._forward, "it runs traced (without the GIL)"
    want = st_model.encode(MORE_TEXTS, batch_size=3, normalize_embeddings=True, convert_to_numpy=True)
    for got in (exact.embed(MORE_TEXTS), np.concatenate([exact.embed([t]) for t in MORE_TEXTS])):
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.abs(got - want).max() < 1e-5


def test_bfloat16_products_keep_the_vectors(st_model) -> None:
    """bfloat16 matrix products (``precision="bfloat16"``; what ``auto`` takes on a CPU with them in
    hardware) give unit vectors within a cosine of 0.999 of sentence-transformers' own, traced."""
    from fleet_memory.providers.embedder import SentenceTransformerEmbedder

    low = SentenceTransformerEmbedder(precision="bfloat16")
    low.embed(["load"])
    assert low._model.precision == "bfloat16" and low._model._run != low._model._forward
    want = st_model.encode(MORE_TEXTS, batch_size=3, normalize_embeddings=True, convert_to_numpy=True)
    for got in (low.embed(MORE_TEXTS), np.concatenate([low.embed([t]) for t in MORE_TEXTS])):
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
        assert (got * want).sum(1).min() > 0.999


def test_auto_precision_follows_the_cpu_and_the_probe(monkeypatch) -> None:
    from fleet_memory.providers import bert
    from fleet_memory.providers.embedder import bundled_model_path

    path = bundled_model_path()
    monkeypatch.setattr(bert, "native_bfloat16", lambda: False)
    assert bert.load(path, "auto").precision == "float32"
    monkeypatch.setattr(bert, "native_bfloat16", lambda: True)
    assert bert.load(path, "auto").precision == "bfloat16"
    monkeypatch.setattr(bert, "BFLOAT16_AGREEMENT", 1.01)  # the probe's vectors never agree enough
    model = bert.load(path, "bfloat16")
    assert model.precision == "float32" and not model._low
    with pytest.raises(ValueError, match="precision must be one of auto, float32, bfloat16, got 'fp8'"):
        bert.load(path, "fp8")


def test_an_encoder_that_cannot_be_traced_runs_eager(monkeypatch) -> None:
    import torch

    from fleet_memory.providers import bert
    from fleet_memory.providers.embedder import bundled_model_path

    def refuse(*args, **kwargs):
        raise RuntimeError("no TorchScript here")

    monkeypatch.setattr(torch.jit, "trace", refuse)
    model = bert.load(bundled_model_path())
    assert model is not None and model._run == model._forward
    assert model.encode(TEXTS).shape == (len(TEXTS), model.dimension)


def test_another_pooling_is_left_to_sentence_transformers(tmp_path) -> None:
    """The lean encoder declines a model with CLS pooling; the embedder then loads it with
    sentence-transformers and gives that library's vectors, for a batch and for one text."""
    import json
    import shutil
    from pathlib import Path

    from sentence_transformers import SentenceTransformer

    from fleet_memory.providers import bert
    from fleet_memory.providers.embedder import SentenceTransformerEmbedder, bundled_model_path

    folder = Path(shutil.copytree(bundled_model_path(), tmp_path / "model"))
    assert bert.load(str(folder)) is not None
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps({**config, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}))
    assert bert.load(str(folder)) is None
    embedder = SentenceTransformerEmbedder(str(folder))
    got = embedder.embed(TEXTS)
    assert isinstance(embedder._model, SentenceTransformer)
    want = SentenceTransformer(str(folder), device="cpu", local_files_only=True).encode(
        TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert got.dtype == np.float32 and np.abs(got - want).max() < 1e-5
    assert np.abs(embedder.embed([TEXTS[0]])[0] - want[0]).max() < 1e-4


def test_concurrent_calls_of_every_shape_agree_with_sequential_ones(real_embedder) -> None:
    """Found by bench/soak.py: concurrent puts raced on the shared tokenizer (HTTP 500)."""
    jobs = [[f"Alice met Bob number {i} in Paris."] if i % 2 else
            [f"Soak {i}: Alice met Bob in Paris.", "Hi", "She gave him a book about " + "long " * (i % 7 + 1)]
            for i in range(48)]
    expected = [real_embedder.embed(job) for job in jobs]
    got: dict[int, object] = {}
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        for i in range(worker, len(jobs), 8):
            try:
                got[i] = real_embedder.embed(jobs[i])
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert all(np.allclose(got[i], expected[i], atol=1e-5) for i in range(len(jobs)))


def test_torch_threads_are_set_for_the_calling_thread_only() -> None:
    """Two windows are embedded at once, each on one torch thread (``ingest.pipeline``), and a
    search's query beside a put: one call's setting must not change another thread's, nor the
    host's once the call is over."""
    import torch

    from fleet_memory.providers.compute import torch_threads

    before = torch.get_num_threads()
    inside, seen = threading.Event(), threading.Event()
    counts: list[int] = []

    def worker() -> None:
        with torch_threads(1):
            counts.append(torch.get_num_threads())
            inside.set()
            seen.wait(30)

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(30)
    counts.append(torch.get_num_threads())  # the main thread's, while the worker holds 1
    seen.set()
    thread.join(30)
    assert counts == [1, before]
    assert torch.get_num_threads() == before
