"""Rows mapped by column name: ``fetch`` runs a statement on a cursor whose row factory hands each
row to a builder as a ``{column name: value}`` mapping, so no caller reads a row by position.

Rows come in PostgreSQL's binary format: no text to parse for timestamps, UUIDs, arrays and
numbers. Measured on the features of 70 units reached by a search (``reads.candidates.unit_features``):
3.3 against 4.5 ms a statement before the rows are built. A ``real`` (float4) column comes as its
exact binary value (0.699999988079071 for 0.7): a builder hands it out through ``as_real``, the
value the text format gave.

A statement's parameters are converted, and its result rows built, in C holding the interpreter
lock: 150,000 rows of a put held it 0.15 s, and no other thread of the process (a search, the
server's event loop) ran meanwhile. Statements whose rows grow with a put's size go in
``slices`` of ``SLICE_ROWS``: a few milliseconds each, and the lock changes hands between them."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import RowMaker

__all__ = ["COPY_FROM_ROWS", "SLICE_ROWS", "fetch", "fetch_one", "as_real", "as_vector", "insert_rows", "slices",
           "vectors_from_send"]

T = TypeVar("T")
Params = Mapping[str, Any] | Sequence[Any] | None
Query = str | sql.Composable


def _named(build: Callable[[Mapping[str, Any]], T]) -> Callable[[psycopg.Cursor[Any]], RowMaker[T]]:
    def factory(cursor: psycopg.Cursor[Any]) -> RowMaker[T]:
        names = [c.name for c in cursor.description or ()]
        return lambda values: build(dict(zip(names, values)))
    return factory


def fetch(conn: psycopg.Connection, query: Query, params: Params, build: Callable[[Mapping[str, Any]], T]) -> list[T]:
    """Every row of ``query``, each built from its named columns."""
    with conn.cursor(row_factory=_named(build), binary=True) as cur:
        return cur.execute(query, params).fetchall()  # type: ignore[arg-type]


def fetch_one(conn: psycopg.Connection, query: Query, params: Params,
              build: Callable[[Mapping[str, Any]], T]) -> T | None:
    """The first row of ``query`` built from its named columns, or ``None``."""
    with conn.cursor(row_factory=_named(build), binary=True) as cur:
        return cur.execute(query, params).fetchone()  # type: ignore[arg-type]


def as_real(value: object) -> float:
    """A ``real`` (float4) value as PostgreSQL's text output gives it: the shortest decimal that
    reads back as the same float4 (0.7, not 0.699999988079071)."""
    return float(str(np.float32(value)))


def as_vector(value: object) -> np.ndarray:
    """A pgvector value (``Vector`` from a binary read, or an array) as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)


def vectors_from_send(raw: bytes, rows: int) -> np.ndarray:
    """``rows`` pgvector values in their binary wire form (``vector_send``: a big-endian int16
    dimension, two unused bytes, then the float32s, big-endian), concatenated, as a float32
    ``(rows, dimension)`` matrix. One parse for all of them: converting each value on its own was
    half the time of reading an agent's embeddings (163 against 89 ms for 10,000)."""
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    dim = int.from_bytes(raw[:2], "big")
    record = np.dtype([("dim", ">i2"), ("unused", ">i2"), ("v", ">f4", (dim,))])
    parsed = np.frombuffer(raw, dtype=record, count=rows)
    if (parsed["dim"] != dim).any():
        raise ValueError("vectors of different dimensions")
    return parsed["v"].astype(np.float32)


SLICE_ROWS = 4096
"""Rows per statement for ``slices`` (about 4 ms of the interpreter lock; a round trip each)."""


def slices(n: int, size: int | None = None) -> Iterator[slice]:
    """``slice`` objects covering ``range(n)`` in consecutive runs of ``size`` (``SLICE_ROWS``)."""
    size = size or SLICE_ROWS
    for start in range(0, n, size):
        yield slice(start, start + size)


COPY_FROM_ROWS = 8
"""From this many rows ``insert_rows`` writes them with one binary ``COPY`` (45 units of a session:
2.5 against 3.0–5.6 ms as an ``INSERT`` a row; 400 units 15 against 26 ms); fewer go as one
``INSERT`` a row, pipelined in one round trip: a ``COPY`` waits for the server at its start and at
its end, which made the write of a single-message put 1.4–1.9 ms slower (1 row: 0.82 against
0.72 ms; 3 rows about even; 10 rows 1.03 against 1.23 ms)."""


def insert_rows(conn: psycopg.Connection, table: str, columns: tuple[tuple[str, str], ...],
                rows: Sequence[Sequence[Any]]) -> None:
    """Insert ``rows`` (values in the order of ``columns``, each a ``(name, type)``) into ``table``:
    one binary ``COPY`` from ``COPY_FROM_ROWS`` rows, else one ``INSERT`` a row, pipelined."""
    if not rows:
        return
    insert, copy_in = _statements(table, columns)
    with conn.cursor() as cur:
        if len(rows) < COPY_FROM_ROWS:
            cur.executemany(insert, rows)
            return
        with cur.copy(copy_in) as copy:
            copy.set_types([kind for _, kind in columns])
            for row in rows:
                copy.write_row(row)


@functools.lru_cache(maxsize=16)
def _statements(table: str, columns: tuple[tuple[str, str], ...]) -> tuple[sql.Composed, sql.Composed]:
    names = sql.SQL(", ").join(sql.Identifier(name) for name, _ in columns)
    return (sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
                sql.Identifier(table), names, sql.SQL(", ").join(sql.Placeholder() * len(columns))),
            sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(sql.Identifier(table), names))
