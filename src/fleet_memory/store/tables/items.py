"""SQL for keyed items: values addressed by (namespace path, key), kept as documents whose metadata
holds the item under ``ITEM`` — the key-value side of a framework's store (``integrations.items``).
An item's text, when it has any, is ingested as ordinary documents and units beside it; this module
only finds, lists, writes and rewrites the item documents themselves.

The namespace path is the namespace's labels joined by ``.`` (LangGraph forbids ``.`` in a label, so
the path is unambiguous); a prefix matches the path itself or the path followed by ``.``. Reads
scan the agent's documents (``documents`` is indexed by agent): O(documents of the agent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from .documents import content_hash

__all__ = ["ITEM", "find_items", "list_items", "item_paths", "rewrite_item"]

ITEM = "fleet_memory.item"
"""The metadata key of an item document: ``{path, key, value, created_at, updated_at, texts, units}``."""

_ITEM_ROWS = ("SELECT d.id, d.metadata -> %(k)s FROM documents d WHERE d.agent_id = %(a)s"
              " AND d.metadata ? %(k)s")


def find_items(conn: psycopg.Connection, agent_id: str,
               refs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[UUID, dict[str, Any]]]:
    """The item document of each ``(path, key)`` found: ``(document id, item)``. Should two exist
    (two writers created the same key at once), the one updated last wins."""
    if not refs:
        return {}
    rows = conn.execute(
        _ITEM_ROWS + " AND (d.metadata -> %(k)s ->> 'path', d.metadata -> %(k)s ->> 'key')"
        " IN (SELECT * FROM unnest(%(paths)s::text[], %(keys)s::text[]))"
        " ORDER BY d.metadata -> %(k)s ->> 'updated_at', d.created_at, d.id",
        {"k": ITEM, "a": agent_id, "paths": [r[0] for r in refs], "keys": [r[1] for r in refs]},
    ).fetchall()
    return {(item["path"], item["key"]): (doc_id, item) for doc_id, item in rows}


def list_items(conn: psycopg.Connection, agent_id: str, prefix: str) -> list[tuple[UUID, dict[str, Any]]]:
    """Every item under the path ``prefix`` ("" for all), most recently updated first."""
    rows = conn.execute(
        _ITEM_ROWS + " AND (%(p)s = '' OR d.metadata -> %(k)s ->> 'path' = %(p)s"
        " OR left(d.metadata -> %(k)s ->> 'path', length(%(p)s) + 1) = %(p)s || '.')"
        " ORDER BY d.metadata -> %(k)s ->> 'updated_at' DESC, d.metadata -> %(k)s ->> 'path',"
        " d.metadata -> %(k)s ->> 'key', d.created_at DESC",
        {"k": ITEM, "a": agent_id, "p": prefix},
    ).fetchall()
    seen, found = set(), []
    for doc_id, item in rows:
        if (item["path"], item["key"]) not in seen:
            seen.add((item["path"], item["key"]))
            found.append((doc_id, item))
    return found


def item_paths(conn: psycopg.Connection, agent_id: str) -> list[str]:
    """The distinct namespace paths that hold at least one item, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT d.metadata -> %(k)s ->> 'path' AS path FROM documents d"
        " WHERE d.agent_id = %(a)s AND d.metadata ? %(k)s ORDER BY path",
        {"k": ITEM, "a": agent_id},
    ).fetchall()
    return [r[0] for r in rows]


def rewrite_item(conn: psycopg.Connection, agent_id: str, document_id: UUID, content: str,
                 item: Mapping[str, Any]) -> None:
    """Replace an item document's content and item in place (a put of an existing key)."""
    conn.execute(
        "UPDATE documents SET content = %(c)s, content_hash = %(h)s,"
        " metadata = jsonb_set(metadata, ARRAY[%(k)s], %(i)s) WHERE agent_id = %(a)s AND id = %(d)s",
        {"c": content, "h": content_hash(content), "k": ITEM, "i": Jsonb(dict(item)), "a": agent_id,
         "d": document_id},
    )
