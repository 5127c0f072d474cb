"""Files → put items, for ``fleet-memory ingest``; and resumable batched ingestion.

Formats, by extension and shape:

- ``.txt`` / ``.md`` (and anything else that is text): paragraphs grouped into chunks of at most
  ``CHUNK_CHARS`` characters; a Markdown chunk's context is its nearest heading, else the file name.
- ``.json`` / ``.jsonl``: a LoCoMo conversation (``{"conversation_id", "speakers", "sessions":
  [{"session_id", "date_time", "turns": [{"dia_id", "speaker", "text"}]}]}``, one per line in
  JSONL), a list of turns / messages (``speaker`` or ``role``, ``text`` or ``content``, optional
  ``timestamp``), or ``{"turns": [...]}`` / ``{"messages": [...]}``.

Resuming: an item whose document is already stored for the agent (same content hash as
``store.documents.content_hash``: content, context, speaker) is skipped, so re-running an
interrupted ingest stores only what is missing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..store import Database
from ..store import documents as doc_sql

__all__ = ["CHUNK_CHARS", "read_items", "IngestProgress", "ingest_batches"]

CHUNK_CHARS = 2_000
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")


def _text_items(path: Path, text: str) -> list[dict[str, Any]]:
    markdown = path.suffix.lower() in (".md", ".markdown")
    items: list[dict[str, Any]] = []
    context, chunk = path.name, []

    def flush() -> None:
        body = "\n\n".join(chunk).strip()
        if body:
            items.append({"content": body, "context": context[:10_000], "source": path.name[:128]})
        chunk.clear()

    for block in re.split(r"\n\s*\n", text):
        heading = _HEADING.match(block.strip().splitlines()[0]) if markdown and block.strip() else None
        if heading:
            flush()
            context = heading.group(1).strip() or path.name
            block = "\n".join(block.strip().splitlines()[1:])
        if chunk and sum(len(c) for c in chunk) + len(block) > CHUNK_CHARS:
            flush()
        if block.strip():
            chunk.append(block.strip())
    flush()
    return items


def _locomo_items(conv: Mapping[str, Any], source: str) -> list[dict[str, Any]]:
    cid = str(conv.get("conversation_id", "conversation"))
    items = []
    for session in conv.get("sessions", []):
        for turn in session.get("turns", []):
            meta = {"blip_caption": turn["blip_caption"]} if turn.get("blip_caption") else {}
            items.append({"text": turn["text"], "speaker": turn.get("speaker"), "timestamp": session.get("date_time"),
                          "turn_id": turn.get("dia_id"), "session_id": f"{cid}:{session.get('session_id')}",
                          "source": source, "metadata": meta})
    return items


def _turn_item(turn: Mapping[str, Any], source: str) -> dict[str, Any]:
    text = turn.get("text", turn.get("content"))
    item = {"text": text, "speaker": turn.get("speaker", turn.get("role")), "source": source}
    for key in ("timestamp", "event_date", "turn_id", "session_id", "context", "tags", "metadata"):
        if turn.get(key) is not None:
            item["timestamp" if key == "event_date" else key] = turn[key]
    return item


def _json_items(value: Any, source: str, where: str) -> list[dict[str, Any]]:
    if isinstance(value, Mapping) and "sessions" in value:
        return _locomo_items(value, source)
    if isinstance(value, Mapping) and isinstance(value.get("turns", value.get("messages")), list):
        value = value.get("turns", value.get("messages"))
    if isinstance(value, Mapping) and ("text" in value or "content" in value):
        return [_turn_item(value, source)]
    if isinstance(value, list):
        return [item for i, v in enumerate(value) for item in _json_items(v, source, f"{where}[{i}]")]
    raise InvalidInputError(where, "is not a conversation, a turn or a list of turns",
                            "LoCoMo conversations, {speaker|role, text|content, timestamp?} turns")


def read_items(path: str | Path) -> list[dict[str, Any]]:
    """The put items of one file (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError("path", f"{path} is not a readable file")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("path", f"{path} is not UTF-8 text") from None
    suffix, source = path.suffix.lower(), path.name[:128]
    try:
        if suffix == ".jsonl":
            return [item for n, line in enumerate(text.splitlines(), 1) if line.strip()
                    for item in _json_items(json.loads(line), source, f"{path.name}:{n}")]
        if suffix == ".json":
            return _json_items(json.loads(text), source, path.name)
    except json.JSONDecodeError as exc:
        raise InvalidInputError("path", f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return _text_items(path, text)


def _hash(item: Mapping[str, Any]) -> str:
    content = item.get("content", item.get("text")) or ""
    return doc_sql.content_hash(content, item.get("context"), item.get("speaker"))


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """After one batch: items looked at, items skipped as already stored, units stored."""

    items: int
    skipped: int
    units: int


def ingest_batches(db: Database, put_many: Callable[..., Sequence[Any]], agent_id: str,
                   items: Iterable[Mapping[str, Any]], *, batch_size: int = 64) -> Iterator[IngestProgress]:
    """Store ``items`` in batches, skipping documents already stored; yield progress per batch."""
    batch: list[Mapping[str, Any]] = []

    def run(chunk: list[Mapping[str, Any]]) -> IngestProgress:
        with db.transaction() as conn:
            have = doc_sql.existing_hashes(conn, agent_id, [_hash(i) for i in chunk])
        seen: set[str] = set()
        fresh = []
        for item in chunk:
            h = _hash(item)
            if h not in have and h not in seen:
                fresh.append(item)
                seen.add(h)
        units = sum(len(r.units) for r in put_many(fresh, agent_id=agent_id)) if fresh else 0
        return IngestProgress(len(chunk), len(chunk) - len(fresh), units)

    for item in items:
        batch.append(item)
        if len(batch) >= batch_size:
            yield run(batch)
            batch = []
    if batch:
        yield run(batch)
