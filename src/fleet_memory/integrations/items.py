"""Keyed items on a fleet memory: the key-value half of a framework's store (the LangGraph store of
``integrations.langgraph``), with no framework imported.

An item is ``(namespace, key) → value`` (a JSON object) in one agent of the memory. Its value is
kept whole in an item document (``store.tables.items``) and returned unchanged; its text (what the
caller chose to index) is ingested by ``FleetMemory.put`` like any memory, so recall finds it, with
metadata naming the item (``TEXT``) and each namespace label (``LABEL`` + position, for recall's
metadata filter). The namespace's user (``ItemStore.user_of``) becomes the put's ``user_id``, so
``forget_user`` removes that user's items and nothing of another user's.

Writing an existing key is an update, as for any fact that changes: the new text is stored by
``FleetMemory.update`` as the new version of the old text's first unit (which stays, superseded, in
``history``); the old version's other units are deleted. Deleting a key deletes its item document
and every text document it ever had, in one transaction. A put is several transactions (the text's
ingestion, then the item document), and writes of one key from two processes at once are not
serialised: the one written last wins on read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from uuid import UUID, uuid4

from ..errors import InvalidInputError, NotFoundError
from ..validation import check_agent_id, check_metadata, check_user_id
from ..store.tables import deletes as delete_sql
from ..store.tables import documents as doc_sql
from ..store.tables import items as item_sql

__all__ = ["ItemStore", "StoredItem", "LABEL", "TEXT", "path_of"]

TEXT = "fleet_memory.item_of"  # metadata of an item's text units: "<path>\x1f<key>"
LABEL = "fleet_memory.ns."  # + position: one namespace label, for recall's equality filter
_MAX_FILTER_LABELS = 15  # recall takes at most 16 metadata keys; the rest of a prefix is checked here
_SEP = "\x1f"


def path_of(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


@dataclass(frozen=True, slots=True)
class StoredItem:
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    document_id: UUID
    texts: tuple[UUID, ...]  # every text document the item had
    units: tuple[UUID, ...]  # the current text's units

    @classmethod
    def from_row(cls, document_id: UUID, item: dict[str, Any]) -> StoredItem:
        return cls(tuple(item["namespace"]), item["key"], item["value"], datetime.fromisoformat(item["created_at"]),
                   datetime.fromisoformat(item["updated_at"]), document_id,
                   tuple(UUID(t) for t in item["texts"]), tuple(UUID(u) for u in item["units"]))


class ItemStore:
    """The items of one agent. ``user_of(namespace)`` names the user an item belongs to (or None)."""

    def __init__(self, memory: Any, agent_id: str, user_of: Callable[[tuple[str, ...]], str | None],
                 source: str) -> None:
        self.memory, self.user_of, self.source = memory, user_of, source
        self.agent_id = check_agent_id(agent_id, memory.config.limits)

    # reading -----------------------------------------------------------------------------
    def get_many(self, refs: Iterable[tuple[tuple[str, ...], str]]) -> dict[tuple[tuple[str, ...], str], StoredItem]:
        wanted = {(path_of(ns), key): (tuple(ns), key) for ns, key in refs}
        with self.memory.db.transaction() as conn:
            rows = item_sql.find_items(conn, self.agent_id, list(wanted))
        return {wanted[ref]: StoredItem.from_row(doc_id, item) for ref, (doc_id, item) in rows.items()}

    def listing(self, prefix: Sequence[str]) -> list[StoredItem]:
        """Every item under ``prefix``, most recently updated first."""
        with self.memory.db.transaction() as conn:
            rows = item_sql.list_items(conn, self.agent_id, path_of(prefix))
        return [StoredItem.from_row(doc_id, item) for doc_id, item in rows]

    def namespaces(self) -> list[tuple[str, ...]]:
        with self.memory.db.transaction() as conn:
            return [tuple(path.split(".")) for path in item_sql.item_paths(conn, self.agent_id)]

    def ranked(self, prefix: Sequence[str], query: str, top_k: int) -> list[tuple[tuple[str, ...], str, float]]:
        """Recall's ranking of the items under ``prefix`` for ``query``: ``(namespace, key, score)``,
        best first, each item once with the score of its best unit."""
        labels = {f"{LABEL}{i}": label for i, label in enumerate(prefix[:_MAX_FILTER_LABELS])}
        results = self.memory.search(self.agent_id, query, top_k=top_k, metadata=labels or None)
        best: dict[tuple[tuple[str, ...], str], float] = {}
        for result in results:
            path, _, key = str(result.metadata.get(TEXT, "")).partition(_SEP)
            namespace = tuple(path.split("."))
            if path and namespace[:len(prefix)] == tuple(prefix):
                best.setdefault((namespace, key), result.weight)
        return [(ns, key, score) for (ns, key), score in best.items()]

    # writing -----------------------------------------------------------------------------
    def put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any], texts: Sequence[str]) -> None:
        """Store ``value`` under ``(namespace, key)`` and ingest ``texts`` (empty: nothing to recall)."""
        body = _json_object(value)
        old = self.get_many([(namespace, key)]).get((namespace, key))
        user = check_user_id(self.user_of(namespace), self.memory.config.limits)
        units, text_doc = self._write_text(namespace, key, old, "\n\n".join(t for t in texts if t.strip()), user)
        now = self.memory.clock.now().astimezone(timezone.utc).isoformat(timespec="microseconds")
        item = {"namespace": list(namespace), "path": path_of(namespace), "key": key, "value": body,
                "created_at": old.created_at.isoformat(timespec="microseconds") if old else now, "updated_at": now,
                "texts": [str(t) for t in (old.texts if old else ())] + ([str(text_doc)] if text_doc else []),
                "units": [str(u) for u in units]}
        content = json.dumps(body, ensure_ascii=False, sort_keys=True)
        with self.memory.db.transaction() as conn:
            if old is not None:
                item_sql.rewrite_item(conn, self.agent_id, old.document_id, content, item)
                return
            doc_sql.insert_documents(conn, [doc_sql.NewDocument(
                id=uuid4(), agent_id=self.agent_id, content=content, event_date=self.memory.clock.now(),
                created_at=self.memory.clock.now(), source=self.source, metadata={item_sql.ITEM: item},
                user_id=user)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove the item and every text it stored; a missing key is no error."""
        old = self.get_many([(namespace, key)]).get((namespace, key))
        if old is None:
            return
        with self.memory.db.transaction() as conn:  # all of it or nothing; one already gone is no error
            for document_id in (*reversed(old.texts), old.document_id):
                delete_sql.delete_document(conn, self.agent_id, document_id)

    def _write_text(self, namespace: tuple[str, ...], key: str, old: StoredItem | None, text: str,
                    user: str | None) -> tuple[tuple[UUID, ...], UUID | None]:
        """Ingest the item's text: a new version of the old text's first unit when there is one.
        Returns the new units and the new text document (none when there is no text)."""
        result, superseded = None, None
        if text:
            meta = {TEXT: path_of(namespace) + _SEP + key,
                    **{f"{LABEL}{i}": label for i, label in enumerate(namespace)}}
            context = f"{self.source}: {'/'.join(namespace)} · {key}"
            if old is not None and old.units:
                try:
                    result = self.memory.update(self.agent_id, old.units[0], text, metadata=meta, context=context,
                                                format="text")
                    superseded = old.units[0] if result.units else None
                except (InvalidInputError, NotFoundError):
                    result = None  # the old unit is gone or has a newer version: store afresh
            if result is None:
                result = self.memory.put(self.agent_id, text, metadata=meta, context=context, user_id=user,
                                         source=self.source, format="text")
        for unit_id in (old.units if old else ()):
            if unit_id != superseded:
                try:
                    self.memory.delete(self.agent_id, unit_id)
                except NotFoundError:
                    pass  # archived-and-removed or forgotten meanwhile
        return (tuple(result.unit_ids), result.document_id) if result else ((), None)


def _json_object(value: object) -> dict[str, Any]:
    """The value as the JSON object that will be stored (and returned by reads)."""
    if not isinstance(value, dict):
        raise InvalidInputError("value", f"must be a JSON object (a dict), got {type(value).__name__}")
    try:
        body = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError("value", f"is not JSON-serialisable: {exc}") from None
    return check_metadata(body, "value")  # every string storable (no NUL, no lone surrogate)
