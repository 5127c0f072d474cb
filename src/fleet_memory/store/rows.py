"""Rows mapped by column name: ``fetch`` runs a statement on a cursor whose row factory hands each
row to a builder as a ``{column name: value}`` mapping, so no caller reads a row by position."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import RowMaker

__all__ = ["fetch", "fetch_one", "as_vector"]

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
    with conn.cursor(row_factory=_named(build)) as cur:
        return cur.execute(query, params).fetchall()  # type: ignore[arg-type]


def fetch_one(conn: psycopg.Connection, query: Query, params: Params,
              build: Callable[[Mapping[str, Any]], T]) -> T | None:
    """The first row of ``query`` built from its named columns, or ``None``."""
    with conn.cursor(row_factory=_named(build)) as cur:
        return cur.execute(query, params).fetchone()  # type: ignore[arg-type]


def as_vector(value: object) -> np.ndarray:
    """A pgvector value (``Vector`` from a binary read, or an array) as float32."""
    to_numpy = getattr(value, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else value, dtype=np.float32)
