"""The lean encoder's batches (``providers.bert.batches``): texts of similar length together."""

from __future__ import annotations

from fleet_memory.providers.bert import MIN_BATCH_TOKENS, SIMILAR_LENGTH, batches


def test_every_text_once_longest_first_and_similar_lengths_together() -> None:
    lengths = [300, 120, 290, 100, 260, 95, 130]  # every batch big enough for the ratio alone to decide
    got = batches(lengths, 64)
    assert sorted(i for b in got for i in b) == list(range(len(lengths)))
    assert [lengths[b[0]] for b in got] == sorted((lengths[b[0]] for b in got), reverse=True)
    for b in got:
        assert all(SIMILAR_LENGTH * lengths[b[0]] <= lengths[i] <= lengths[b[0]] for i in b)
    assert got == [[0, 2, 4], [6, 1], [3, 5]]


def test_a_small_batch_takes_the_next_texts_whatever_their_length() -> None:
    """Under ``MIN_BATCH_TOKENS`` padded, a batch takes shorter texts too: a batch of one or two
    short texts runs its products at a fraction of the rate of a larger one."""
    lengths = [12, 60, 7, 58, 13, 30, 5, 61, 12, 29, 6]
    got = batches(lengths, 64)
    assert got == [[7, 1, 3, 5, 9], [4, 0, 8, 2, 10, 6]]  # 61 × 4 = 244 < 256 took the 29 too
    for b in got:
        late = [n for n, i in enumerate(b) if lengths[i] < SIMILAR_LENGTH * lengths[b[0]]]
        assert not late or lengths[b[0]] * late[0] < MIN_BATCH_TOKENS


def test_a_batch_holds_at_most_the_batch_size() -> None:
    got = batches([10] * 10, 4)
    assert [len(b) for b in got] == [4, 4, 2]
    assert got[0] == [0, 1, 2, 3]  # equal lengths keep their order


def test_no_texts_no_batches() -> None:
    assert batches([], 64) == []
