"""The lean encoder's batches (``providers.bert.batches``): texts of similar length together."""

from __future__ import annotations

from fleet_memory.providers.bert import SIMILAR_LENGTH, batches


def test_every_text_once_longest_first_and_similar_lengths_together() -> None:
    lengths = [12, 60, 7, 58, 13, 30, 5, 61, 12, 29, 6]
    got = batches(lengths, 64)
    assert sorted(i for b in got for i in b) == list(range(len(lengths)))
    assert [lengths[b[0]] for b in got] == sorted((lengths[b[0]] for b in got), reverse=True)
    for b in got:
        assert all(SIMILAR_LENGTH * lengths[b[0]] <= lengths[i] <= lengths[b[0]] for i in b)
    assert got[:2] == [[7, 1, 3], [5, 9]]  # 61, 60, 58 in one batch; 30, 29 in the next


def test_a_batch_holds_at_most_the_batch_size() -> None:
    got = batches([10] * 10, 4)
    assert [len(b) for b in got] == [4, 4, 2]
    assert got[0] == [0, 1, 2, 3]  # equal lengths keep their order


def test_no_texts_no_batches() -> None:
    assert batches([], 64) == []
