"""The three memory tools every framework module exposes — ``remember``, ``recall``, ``forget`` — as
plain functions over a fleet memory and a ``Scope``, with no framework imported. Each framework
module wraps these in its own tool type, so the tools behave the same everywhere.

A ``Scope`` is who the memory belongs to: one fleet-memory agent and, optionally, one user (and a
session, kept with what is stored). ``remember`` stores for that user, ``recall`` searches only
that user's memories when a user is set, and ``forget`` removes a memory only when it belongs to
the scope's user: one user's agent never reads or deletes another user's memories. The answers are
short texts, since a model reads them; ``recall`` lists each memory's id so ``forget`` can name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from ..errors import InvalidInputError, NotFoundError
from ..model import MemoryUnit, PutResult, SearchResult
from ..store.reads import graph as graph_sql
from ..store.tables import units as unit_sql

__all__ = ["Scope", "remember", "remember_result", "recall", "recall_results", "forget", "forget_unit", "format_results", "unit_details",
           "UnitDetail", "DESCRIPTIONS"]

DESCRIPTIONS = {
    "remember": "Store a fact in long-term memory so it can be recalled in later conversations. "
                "Pass one self-contained statement, e.g. 'Alice prefers tea over coffee.'",
    "recall": "Search long-term memory for facts relevant to a question; returns the best matches, each "
              "with its id.",
    "forget": "Remove one memory from long-term memory, by the id that recall showed.",
}
MAX_RECALL = 50


@dataclass(frozen=True, slots=True)
class UnitDetail:
    entities: tuple[str, ...]
    source: str | None
    user_id: str | None


@dataclass(frozen=True, slots=True)
class Scope:
    agent_id: str
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None  # the framework, kept with what is stored


def remember_result(memory: Any, scope: Scope, text: str) -> PutResult:
    return memory.put(scope.agent_id, text, user_id=scope.user_id, session_id=scope.session_id,
                      source=scope.source, memory_type="semantic")


def remember(memory: Any, scope: Scope, text: str) -> str:
    result = remember_result(memory, scope, text)
    if not result.units:
        return f"Nothing stored: {result.skipped_reason}"
    return "Stored: " + "; ".join(f"[{u.id}] {u.text}" for u in result.units)


def recall_results(memory: Any, scope: Scope, query: str, limit: int = 5) -> list[SearchResult]:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_RECALL:
        raise InvalidInputError("limit", f"is {limit!r}", f"a whole number from 1 to {MAX_RECALL}")
    return memory.search(scope.agent_id, query, top_k=limit, user_id=scope.user_id)


def recall(memory: Any, scope: Scope, query: str, limit: int = 5) -> str:
    return format_results(recall_results(memory, scope, query, limit))


def forget_unit(memory: Any, scope: Scope, memory_id: str) -> MemoryUnit | None:
    """Delete the scope's memory ``memory_id``; the unit deleted, or None when the scope has none
    by that id (another user's counts as none: not even its existence is told)."""
    try:
        unit = memory.get(scope.agent_id, memory_id)
    except (NotFoundError, InvalidInputError):
        return None
    if scope.user_id is not None and unit.user_id != scope.user_id:
        return None
    memory.delete(scope.agent_id, unit.id)
    return unit


def forget(memory: Any, scope: Scope, memory_id: str) -> str:
    unit = forget_unit(memory, scope, memory_id)
    return f"Forgotten: {unit.text}" if unit else f"No memory with id {memory_id}."


def unit_details(memory: Any, agent_id: str, results: Sequence[SearchResult]) -> dict[UUID, UnitDetail]:
    """The entities each result mentions and the source it was stored from, in one transaction."""
    ids = [r.id for r in results]
    if not ids:
        return {}
    with memory.db.transaction() as conn:
        units = unit_sql.get_units(conn, agent_id, ids)
        mentions = graph_sql.mentions_among(conn, agent_id, ids)
    names: dict[UUID, list[str]] = {}
    for unit_id, _entity_id, name, _label in mentions:
        names.setdefault(unit_id, []).append(name)
    return {u.id: UnitDetail(tuple(sorted(names.get(u.id, ()))), u.source, u.user_id) for u in units}


def format_results(results: Sequence[SearchResult]) -> str:
    if not results:
        return "No memories found."
    return "\n".join(f"- [{r.id}] {r.text} ({r.event_date.date().isoformat()})" for r in results)
