"""Export and import of one agent's whole memory as JSON Lines, losslessly.

Format (one JSON object per line)::

    {"format": "fleet-memory-export", "version": 1, "agent_id": "...", "schema_version": N,
     "embedding_dim": 384, "tables": ["documents", "memory_units", ...]}
    {"table": "documents", "row": {...every stored column...}}
    ...

Rows come in foreign-key order (parents first), so an import streams the file once, inserting
in batches of ``batch`` rows, in one transaction: a failed import leaves nothing behind. Ids are
kept, so units, entities, mentions, links and provenance stay connected; ``agent_id`` is
rewritten to the target agent, and units get fresh write orders (``seq``) from the shared
sequence in their exported relative order (the file's numbers never move that sequence). The
target must be empty and built for the same embedding size.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import InvalidInputError
from ..store import Database
from ..store.db import planner
from ..store.db.migrations import current_version
from ..store.tables import transfer as sql
from .checks import check_row

__all__ = ["FORMAT", "TransferReport", "export_agent", "import_agent"]

FORMAT = "fleet-memory-export"


@dataclass(frozen=True, slots=True)
class TransferReport:
    agent_id: str
    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "rows": dict(self.rows)}


def export_agent(db: Database, agent_id: str, out: IO[str]) -> TransferReport:
    counts: dict[str, int] = {}
    with db.transaction() as conn:
        tables = sql.agent_tables(conn)
        header = {"format": FORMAT, "version": 1, "agent_id": agent_id, "schema_version": current_version(conn),
                  "embedding_dim": sql.embedding_dim(conn), "tables": tables}
        out.write(json.dumps(header) + "\n")
        for table in tables:
            counts[table] = 0
            for row in sql.iter_rows(conn, table, agent_id):
                out.write(json.dumps({"table": table, "row": row}, ensure_ascii=False) + "\n")
                counts[table] += 1
    return TransferReport(agent_id, counts)


def _records(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Lines are split on ``\\n`` only (as the export writes them), never on U+2028 and the like."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"line {number}", f"is not JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise InvalidInputError(f"line {number}", f"must be a JSON object, got {type(record).__name__}")
            yield number, record


def import_agent(db: Database, agent_id: str, lines: Iterable[str], *, batch: int = 1_000) -> TransferReport:
    records = _records(lines)
    first = next(records, None)
    if first is None or first[1].get("format") != FORMAT:
        raise InvalidInputError("file", f"is not a fleet-memory export (first line must have format {FORMAT!r})")
    header = first[1]
    counts: dict[str, int] = {}
    with db.transaction() as conn:
        tables = sql.agent_tables(conn)
        if header.get("embedding_dim") != sql.embedding_dim(conn):
            raise InvalidInputError("embedding_dim", f"the export has {header.get('embedding_dim')}-dimensional "
                                    f"embeddings, this database {sql.embedding_dim(conn)}")
        if not sql.agent_is_empty(conn, agent_id, tables):
            raise InvalidInputError("agent_id", f"agent {agent_id!r} already has memories; import into a new agent")
        pending: list[dict[str, Any]] = []
        numbers: list[int] = []
        current: str | None = None
        types: dict[str, str] = {}
        for number, record in records:
            table, row = record.get("table"), record.get("row")
            if table not in tables or not isinstance(row, dict):
                raise InvalidInputError(f"line {number}", f"unknown table {table!r} or missing row")
            if (table != current or len(pending) >= batch) and pending:
                counts[current] = counts.get(current, 0) + sql.insert_imported(conn, current, pending, numbers)
                pending, numbers = [], []
            if table != current:
                current, types = table, sql.column_types(conn, table)
            pending.append({**check_row(number, table, row, types), "agent_id": agent_id})
            numbers.append(number)
        if pending:
            counts[current] = counts.get(current, 0) + sql.insert_imported(conn, current, pending, numbers)
        sql.renumber_unit_seq(conn, agent_id)
        units = planner.unit_counts(conn, [agent_id])
    if grown := planner.crossed_checkpoints(units, units):
        with db.transaction() as conn:
            planner.refresh_if_stale(conn, grown, units)
    return TransferReport(agent_id, counts)
