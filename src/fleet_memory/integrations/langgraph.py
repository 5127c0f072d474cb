"""A LangGraph store on fleet-memory: ``FleetMemoryStore`` is a ``langgraph.store.base.BaseStore``
(``graph.compile(store=…)``, ``get_store()`` in a node, ``create_agent(store=…)``).

Mapping: every item of one store lives in one fleet-memory agent (``agent_id``). The namespace is
kept whole with the item; when ``user_level`` is set, the namespace label at that position is the
item's user (``("users", "alice", "memories")`` with ``user_level=1`` → user ``alice``), so
``FleetMemory.forget_user(agent_id, "alice")`` removes her items, and a search under her prefix
reads only her items. Namespaces shorter than that have no user.

``put`` keeps the value whole (``get`` returns it unchanged) and ingests its text: the fields that
``index`` names (the put's, else the store's), read with LangGraph's own path syntax; without
fields, every string in the value; ``index=False``: none. ``search(query=…)`` ranks the items
under the prefix through fleet-memory's recall (``SearchItem.score`` is the recall weight of the
item's best unit) and then, as LangGraph's ``InMemoryStore`` does for items without vectors, lists
the other matching items unscored after them; without a query it lists the matching items, most
recently updated first. A ``put`` of an existing key is an update (``integrations.items``).
Within one ``batch`` the reads see the store as it was before the batch's writes, and of several
writes to one key the last wins — as in ``InMemoryStore``.

Not supported: TTL (``supports_ttl`` is False: a ``ttl`` is refused by ``BaseStore``); the
``refresh_ttl`` flags are accepted and ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from ..extras import require

require("langgraph", "fleet_memory.integrations.langgraph", "langgraph")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path  # noqa: E402

from ..errors import InvalidInputError  # noqa: E402
from .items import ItemStore, StoredItem  # noqa: E402

__all__ = ["FleetMemoryStore"]

_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


class FleetMemoryStore(BaseStore):
    """LangGraph's long-term memory store, kept in ``memory`` under ``agent_id``."""

    supports_ttl = False

    def __init__(self, memory: Any, *, agent_id: str = "langgraph", user_level: int | None = None,
                 index: Sequence[str] | None = None) -> None:
        if user_level is not None and (not isinstance(user_level, int) or user_level < 0):
            raise InvalidInputError("user_level", f"is {user_level!r}", "a namespace position, 0 or more")
        self.memory, self.user_level = memory, user_level
        self.index_fields = None if index is None else list(index)
        self.items = ItemStore(memory, agent_id, self._user_of, source="langgraph")

    def _user_of(self, namespace: tuple[str, ...]) -> str | None:
        level = self.user_level
        return namespace[level] if level is not None and level < len(namespace) else None

    # the seam ------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = [None if isinstance(op, PutOp) else self._read(op) for op in ops]
        writes = {(op.namespace, op.key): op for op in ops if isinstance(op, PutOp)}
        for op in writes.values():
            self._write(op)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self.items.get_many([(op.namespace, op.key)]).get((op.namespace, op.key))
            return None if found is None else Item(value=found.value, key=found.key, namespace=found.namespace,
                                                   created_at=found.created_at, updated_at=found.updated_at)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"Unknown operation type: {type(op).__name__}")

    def _write(self, op: PutOp) -> None:
        if op.value is None:
            self.items.delete(op.namespace, op.key)
        else:
            self.items.put(op.namespace, op.key, dict(op.value), self._texts(op.value, op.index))

    def _texts(self, value: Any, index: Any) -> list[str]:
        if index is False:
            return []
        fields = index if index is not None else self.index_fields
        if fields is None:
            return _strings(value)
        return [text for field in fields for text in get_text_at_path(value, field) if text.strip()]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise InvalidInputError("limit" if op.limit < 0 else "offset", "is negative", "0 or more")
        listed = [i for i in self.items.listing(op.namespace_prefix) if _matches(i.value, op.filter)]
        scored: list[tuple[StoredItem, float | None]] = [(i, None) for i in listed]
        if op.query:
            by_ref = {(i.namespace, i.key): i for i in listed}
            top_k = min(self.memory.config.limits.max_top_k, 3 * (op.offset + op.limit) + 10)
            ranked = [(by_ref[(ns, key)], score) for ns, key, score
                      in self.items.ranked(op.namespace_prefix, op.query, top_k) if (ns, key) in by_ref]
            seen = {(i.namespace, i.key) for i, _ in ranked}
            scored = ranked + [(i, None) for i in listed if (i.namespace, i.key) not in seen]
        return [SearchItem(namespace=i.namespace, key=i.key, value=i.value, created_at=i.created_at,
                           updated_at=i.updated_at, score=score)
                for i, score in scored[op.offset:op.offset + op.limit]]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [ns for ns in self.items.namespaces()
                 if all(_namespace_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            found = sorted({ns[:op.max_depth] for ns in found})
        return found[op.offset:op.offset + op.limit]


def _strings(value: Any) -> list[str]:
    """Every non-blank string in a JSON value, depth first (the default text of an item)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        part = namespace[:len(path)]
    elif condition.match_type == "suffix":
        part = namespace[len(namespace) - len(path):]
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or p == n for p, n in zip(path, part))


def _matches(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    """LangGraph's filter: each key equal to its value (objects and lists compared member by member),
    or meeting each ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte`` given (numbers)."""
    return all(_meets(value.get(key), wanted) for key, wanted in (conditions or {}).items())


def _meets(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict) and any(k.startswith("$") for k in wanted):
        return all(_compare(actual, op, operand) for op, operand in wanted.items())
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(_meets(actual.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(wanted)
                and all(_meets(a, w) for a, w in zip(actual, wanted)))
    return actual == wanted


def _compare(actual: Any, operator: str, operand: Any) -> bool:
    if operator not in _OPERATORS:
        raise InvalidInputError("filter", f"has the operator {operator!r}", ", ".join(_OPERATORS))
    if operator in ("$eq", "$ne"):
        return (actual == operand) == (operator == "$eq")
    if actual is None:
        return False  # a missing field is neither above nor below anything
    a, b = float(actual), float(operand)
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[operator]
