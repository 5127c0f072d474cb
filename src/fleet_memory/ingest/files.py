"""Files → put items, for ``fleet-memory ingest``; and resumable batched ingestion.

Formats, by extension and shape:

- ``.md`` / ``.markdown`` (Markdown), ``.rst`` / ``.rest`` (reStructuredText), and any other
  text file that ``markup.detect_format`` finds to be one of them: parsed (``ingest.markup``); its
  prose blocks, grouped per section into chunks of at most ``CHUNK_CHARS`` characters, are put as
  plain text (``format="text"``) with the context "file name > heading > subheading"; the section's
  links are in the item's ``metadata["links"]``. Code, images, badges, raw HTML and tables are not
  stored.
- other text (``.txt`` …): paragraphs grouped into chunks of at most ``CHUNK_CHARS`` characters,
  with the file name as context.
- ``.json`` / ``.jsonl``: a LoCoMo conversation (``{"conversation_id", "speakers", "sessions":
  [{"session_id", "date_time", "turns": [{"dia_id", "speaker", "text"}]}]}``, one per line in
  JSONL), a list of turns / messages (``speaker`` or ``role``, ``text`` or ``content``, and the
  turn's time as ``timestamp``, ``time``, ``date`` or ``event_date`` — an ISO 8601 string, or a
  number of seconds since 1970 —, optional ``turn_id``, ``session_id``, ``context``, ``tags``,
  ``metadata``), or ``{"turns": [...]}`` / ``{"messages": [...]}``.

Resuming: an item is identified by its content (the hash of ``store.tables.documents.content_hash``:
content, context, speaker), its source file, its time (when it has one) and its turn id; the
k-th item of one identity in a run is skipped when the agent already holds k documents of that
identity. So re-running an interrupted ingest stores only what is missing, while the same words
said again at another time or turn, or repeated within a file, are stored each time.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..store import Database
from ..store.tables import documents as doc_sql
from ..validation import check_date
from .markup import HEADING_SEPARATOR, Block, blocks_of, detect_format

__all__ = ["CHUNK_CHARS", "read_items", "IngestProgress", "ingest_batches"]

CHUNK_CHARS = 2_000
_TIME_KEYS = ("timestamp", "time", "date", "event_date")
_FORMAT_OF = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".rest": "rst"}


def _markup_items(path: Path, blocks: list[Block]) -> list[dict[str, Any]]:
    """One item per run of blocks under the same heading path, at most ``CHUNK_CHARS`` each."""
    items: list[dict[str, Any]] = []
    chunk: list[Block] = []

    def flush() -> None:
        if chunk:
            context = HEADING_SEPARATOR.join((path.name, *chunk[0].headings))
            links = [{"text": t, "url": u} for b in chunk for t, u in b.links]
            item = {"content": "\n\n".join(b.text for b in chunk), "context": context[:10_000],
                    "source": path.name[:128], "format": "text"}
            if links:
                item["metadata"] = {"links": links}
            items.append(item)
        chunk.clear()

    for block in blocks:
        if chunk and (block.headings != chunk[0].headings
                      or sum(len(b.text) for b in chunk) + len(block.text) > CHUNK_CHARS):
            flush()
        chunk.append(block)
    flush()
    return items


def _text_items(path: Path, text: str) -> list[dict[str, Any]]:
    fmt = _FORMAT_OF.get(path.suffix.lower()) or detect_format(text)
    blocks = blocks_of(text, fmt)
    if blocks is not None:
        return _markup_items(path, blocks)
    items: list[dict[str, Any]] = []
    chunk: list[str] = []

    def flush() -> None:
        body = "\n\n".join(chunk).strip()
        if body:
            items.append({"content": body, "context": path.name, "source": path.name[:128], "format": "text"})
        chunk.clear()

    for block in re.split(r"\n\s*\n", text):
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


def _turn_time(turn: Mapping[str, Any], where: str) -> Any:
    """The turn's time from whichever one of ``_TIME_KEYS`` it has; epoch seconds become UTC."""
    given = [key for key in _TIME_KEYS if turn.get(key) is not None]
    if len(given) > 1:
        raise InvalidInputError(f"{where}.{given[1]}", f"the turn's time is given twice ({', '.join(given)})",
                                "one of " + ", ".join(_TIME_KEYS))
    if not given:
        return None
    value = turn[given[0]]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise InvalidInputError(f"{where}.{given[0]}", f"{value!r} is not a time in seconds since 1970") from None
    return value


def _turn_item(turn: Mapping[str, Any], source: str, where: str) -> dict[str, Any]:
    text = turn.get("text", turn.get("content"))
    item = {"text": text, "speaker": turn.get("speaker", turn.get("role")), "source": source}
    when = _turn_time(turn, where)
    if when is not None:
        item["timestamp"] = when
    for key in ("turn_id", "session_id", "context", "tags", "metadata"):
        if turn.get(key) is not None:
            item[key] = turn[key]
    return item


def _json_items(value: Any, source: str, where: str) -> list[dict[str, Any]]:
    if isinstance(value, Mapping) and "sessions" in value:
        return _locomo_items(value, source)
    if isinstance(value, Mapping) and isinstance(value.get("turns", value.get("messages")), list):
        value = value.get("turns", value.get("messages"))
    if isinstance(value, Mapping) and ("text" in value or "content" in value):
        return [_turn_item(value, source, where)]
    if isinstance(value, list):
        return [item for i, v in enumerate(value) for item in _json_items(v, source, f"{where}[{i}]")]
    raise InvalidInputError(where, "is not a conversation, a turn or a list of turns",
                            "LoCoMo conversations, {speaker|role, text|content, timestamp|time?} turns")


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
            return [item for n, line in enumerate(text.split("\n"), 1) if line.strip()
                    for item in _json_items(json.loads(line), source, f"{path.name}:{n}")]
        if suffix == ".json":
            return _json_items(json.loads(text), source, path.name)
    except json.JSONDecodeError as exc:
        raise InvalidInputError("path", f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return _text_items(path, text)


def _hash(item: Mapping[str, Any]) -> str:
    content = item.get("content", item.get("text")) or ""
    return doc_sql.content_hash(content, item.get("context"), item.get("speaker"))


def _identity(item: Mapping[str, Any]) -> tuple[str, Any, datetime | None, str | None]:
    try:
        when = check_date(item.get("timestamp", item.get("event_date")), "timestamp")
    except InvalidInputError:
        when = None  # the put reports it
    turn = item.get("turn_id")
    return _hash(item), item.get("source"), when, None if turn is None else str(turn)


def _matches(stored: tuple, wanted: tuple) -> bool:
    """A stored document is this item when hash, source and turn agree, and the time too where
    the item has one (an item without one was stored at the time of its run)."""
    return stored[0] == wanted[0] and stored[1] == wanted[1] and stored[3] == wanted[3] and (
        wanted[2] is None or stored[2] == wanted[2])


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """After one batch: items looked at, items skipped as already stored, units stored."""

    items: int
    skipped: int
    units: int


def ingest_batches(db: Database, put_many: Callable[..., Sequence[Any]], agent_id: str,
                   items: Iterable[Mapping[str, Any]], *, batch_size: int = 64) -> Iterator[IngestProgress]:
    """Store ``items`` in batches, skipping those already stored (see the module docstring);
    yield progress per batch."""
    batch: list[Mapping[str, Any]] = []
    seen: Counter[tuple] = Counter()  # occurrences of each identity so far in this run

    def run(chunk: list[Mapping[str, Any]]) -> IngestProgress:
        identities = [_identity(i) for i in chunk]
        with db.transaction() as conn:
            stored = doc_sql.stored_identities(conn, agent_id, [i[0] for i in identities])
        fresh = []
        for item, identity in zip(chunk, identities):
            seen[identity] += 1
            if sum(1 for row in stored if _matches(row, identity)) < seen[identity]:
                fresh.append(item)
        units = sum(len(r.units) for r in put_many(fresh, agent_id=agent_id)) if fresh else 0
        return IngestProgress(len(chunk), len(chunk) - len(fresh), units)

    for item in items:
        batch.append(item)
        if len(batch) >= batch_size:
            yield run(batch)
            batch = []
    if batch:
        yield run(batch)
