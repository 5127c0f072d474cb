"""``store.db.rows.vectors_from_send``: pgvector's binary wire form, many values at once."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from fleet_memory.store.db.rows import vectors_from_send


def _send(values: list[float]) -> bytes:
    return struct.pack(">hh", len(values), 0) + struct.pack(f">{len(values)}f", *values)


def test_values_in_order_as_float32() -> None:
    rows = [[0.5, -1.25, 3.0], [1e-3, 0.0, -2.5]]
    got = vectors_from_send(b"".join(_send(r) for r in rows), len(rows))
    assert got.dtype == np.float32 and got.shape == (2, 3)
    assert np.array_equal(got, np.asarray(rows, dtype=np.float32))


def test_no_rows_and_mixed_dimensions() -> None:
    assert vectors_from_send(b"", 0).shape == (0, 0)
    with pytest.raises(ValueError, match="different dimensions"):
        vectors_from_send(_send([1.0, 2.0]) + _send([1.0, 2.0, 3.0])[:12], 2)
