"""The real embedder: one text (a search query) takes the traced fast path, and it gives the
vector that the batch path gives the same text."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.models

TEXTS = ["What does Alice do?", "ok", "Alice loves hiking in the mountains, mostly in Yosemite, every spring " * 8,
         "A very long note that runs past the model's 256-token window. " * 40]


def test_single_text_matches_the_batch_path(real_embedder) -> None:
    batch = real_embedder.embed(TEXTS + ["a filler text so the batch is padded"])
    for i, text in enumerate(TEXTS):
        single = real_embedder.embed([text])
        assert single.shape == (1, real_embedder.dimension) and single.dtype == np.float32
        assert np.allclose(single[0], batch[i], atol=1e-4), text
        assert abs(float(np.linalg.norm(single[0])) - 1.0) < 1e-5
    assert real_embedder._single, "the traced path should be available for all-MiniLM-L6-v2"


def test_an_untraceable_model_keeps_the_plain_path(real_embedder) -> None:
    from fleet_memory.providers.embedder import _SingleText

    class Broken:
        tokenizer = None

        def __getitem__(self, index):
            raise TypeError("not a sentence-transformers pipeline")

    assert _SingleText.build(Broken()) is None


def test_concurrent_calls_of_every_shape_agree_with_sequential_ones(real_embedder) -> None:
    """Found by bench/soak.py: concurrent puts raced on the shared tokenizer (HTTP 500)."""
    import threading

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
