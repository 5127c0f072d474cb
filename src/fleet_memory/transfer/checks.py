"""The rules of every other door, applied to one imported row before PostgreSQL sees it.

A column's rule follows from its stored type, so tables added by later migrations are covered
without a list to keep up to date:

- timestamps: an ISO-8601 string whose instant lies in the years 1 to 9999 in UTC (the range
  ``validation.check_date`` allows at every other door). PostgreSQL would also take
  ``infinity``, ``-infinity`` and years up to 294276, and every reader of such a value (the agent
  listing, maintenance across all agents, decay, export) then fails. Accepted values are passed
  on in one canonical form (UTC, ``+00:00``), so the database and Python read the same instant.
- integers (``access_count``, ``mention_count``, ``term_df.df``): counts, so whole numbers from 0
  to ``MAX_COUNT``. The ceiling leaves over a billion increments below the 32-bit column's limit,
  so the next put or search never overflows it. ``memory_units.seq`` is only an order (imports
  renumber it) and may be any 64-bit integer.
- floating-point numbers: finite JSON numbers; each table's own checks then bound them.
- ``metadata``: a JSON object wherever a table has one (jsonb would take any JSON value, and
  readers expect a mapping).

Everything else (ids, texts, foreign keys, uniqueness) PostgreSQL checks, and a row it refuses is
named by its line too (``store.tables.transfer.insert_imported``).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import InvalidInputError
from ..validation import check_date

__all__ = ["MAX_COUNT", "check_row"]

MAX_COUNT = 1_000_000_000
_BIGINT = 2**63
_TIMESTAMPS = ("timestamp with time zone", "timestamp without time zone")
_INTEGERS = ("smallint", "integer", "bigint")
_FLOATS = ("real", "double precision")
_DATE_LIMIT = "ISO-8601 in the years 1 to 9999 UTC, 0001-01-01T00:00Z to 9999-12-31T23:59:59Z"


def _timestamp(number: int, name: str, value: Any) -> str:
    if isinstance(value, str):
        try:
            when = check_date(value, name)
        except InvalidInputError:
            when = None
        if when is not None:
            return when.isoformat()
    raise InvalidInputError(f"line {number}", f"{name} {value!r} is not a date within the years 1 to 9999",
                            _DATE_LIMIT)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer(number: int, name: str, value: Any) -> int:
    if name == "memory_units.seq":
        if _whole(value) and -_BIGINT <= value < _BIGINT:
            return value
        raise InvalidInputError(f"line {number}", f"{name} {value!r} is not a 64-bit integer", "-2**63 to 2**63-1")
    if _whole(value) and 0 <= value <= MAX_COUNT:
        return value
    raise InvalidInputError(f"line {number}", f"{name} {value!r} is not a count",
                            f"a whole number from 0 to {MAX_COUNT:,}")


def _float(number: int, name: str, value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    raise InvalidInputError(f"line {number}", f"{name} {value!r} is not a finite number")


def check_row(number: int, table: str, row: dict[str, Any], types: dict[str, str]) -> dict[str, Any]:
    """The row with its timestamps in canonical form, or ``InvalidInputError`` naming the line
    (``field``) and the column (``table.column`` at the start of ``problem``)."""
    checked = dict(row)
    for column, value in row.items():
        kind, name = types.get(column), f"{table}.{column}"
        if value is None:
            continue
        if kind in _TIMESTAMPS:
            checked[column] = _timestamp(number, name, value)
        elif kind in _INTEGERS:
            checked[column] = _integer(number, name, value)
        elif kind in _FLOATS:
            checked[column] = _float(number, name, value)
        elif kind == "jsonb" and column == "metadata" and not isinstance(value, dict):
            raise InvalidInputError(f"line {number}", f"{name} must be a JSON object, got {type(value).__name__}")
    return checked
