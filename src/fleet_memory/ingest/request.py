"""Validated ``Episode`` records from the facade's ``put`` / ``put_many`` arguments.

``put_many`` items are mappings with the keyword names of ``put`` (``content`` — or ``text`` for a
conversation turn —, ``context``, ``event_date`` — or ``timestamp`` —, ``memory_type``,
``importance``, ``tags``, ``user_id``, ``session_id``, ``source``, ``speaker``, ``metadata``,
``turn_id``, ``format``, ``keep_code``) and optionally ``agent_id``.

``format`` says how ``content`` is read: ``"auto"`` (the default: Markdown or reStructuredText
when it shows their signs, see ``markup.detect_format``, else plain text), ``"text"``,
``"markdown"`` or ``"rst"``; ``keep_code`` (default false) stores each code block of structured
content as one unit of kind ``"code"`` instead of dropping it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ..config import Limits
from ..errors import InvalidInputError
from ..validation import (
    check_agent_id,
    check_date,
    check_importance,
    check_memory_type,
    check_metadata,
    check_optional_text,
    check_user_id,
    check_tags,
    check_text,
)
from .markup import FORMATS
from .records import Episode

__all__ = ["build_episode", "build_episodes"]

_ITEM_KEYS = {
    "agent_id", "content", "text", "context", "event_date", "timestamp", "memory_type", "importance", "tags",
    "user_id", "session_id", "source", "speaker", "metadata", "turn_id", "format", "keep_code",
}


def _check_format(value: object, field: str) -> str:
    if value is None:
        return "auto"
    if value not in FORMATS:
        raise InvalidInputError(field, f"unknown format {value!r}", ", ".join(FORMATS))
    return str(value)


def _check_flag(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(field, f"must be true or false, got {type(value).__name__}")
    return value


def build_episode(
    limits: Limits,
    now: datetime,
    agent_id: object,
    content: object,
    *,
    context: object = None,
    event_date: object = None,
    memory_type: object = "episodic",
    importance: object = None,
    tags: object = (),
    user_id: object = None,
    session_id: object = None,
    source: object = None,
    speaker: object = None,
    metadata: object = None,
    turn_id: object = None,
    format: object = "auto",
    keep_code: object = False,
    field_prefix: str = "",
) -> Episode:
    p = field_prefix
    meta = check_metadata(metadata, f"{p}metadata")
    if turn_id is not None:
        meta["turn_id"] = str(check_optional_text(str(turn_id), f"{p}turn_id", limits.max_tag_chars))
    return Episode(
        agent_id=check_agent_id(agent_id, limits, f"{p}agent_id"),
        content=check_text(content, f"{p}content", limits.max_content_chars),
        event_date=check_date(event_date, f"{p}event_date") or now,
        memory_type=check_memory_type(memory_type, f"{p}memory_type").value,
        importance=check_importance(importance, f"{p}importance"),
        context=check_optional_text(context, f"{p}context", limits.max_context_chars),
        tags=check_tags(tags, limits, f"{p}tags"),
        user_id=check_user_id(user_id, limits, f"{p}user_id"),
        session_id=check_optional_text(session_id, f"{p}session_id", limits.max_agent_id_chars),
        source=check_optional_text(source, f"{p}source", limits.max_tag_chars),
        speaker=check_optional_text(speaker, f"{p}speaker", limits.max_tag_chars),
        metadata=meta,
        format=_check_format(format, f"{p}format"),
        keep_code=_check_flag(keep_code, f"{p}keep_code"),
    )


def build_episodes(limits: Limits, now: datetime, items: Iterable[Mapping[str, Any]], agent_id: object = None) -> list[Episode]:
    if isinstance(items, (str, bytes, Mapping)):
        raise InvalidInputError("items", "must be a list of mappings")
    episodes = []
    for i, item in enumerate(items):
        if i >= limits.max_batch_items:
            raise InvalidInputError("items", "too many items", f"{limits.max_batch_items:,} per call")
        prefix = f"items[{i}]."
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"items[{i}]", f"must be a mapping, got {type(item).__name__}")
        unknown = set(item) - _ITEM_KEYS
        if unknown:
            raise InvalidInputError(prefix + sorted(unknown)[0], "unknown key", ", ".join(sorted(_ITEM_KEYS)))
        fields = dict(item)
        content = fields.pop("content", None)
        text = fields.pop("text", None)
        if content is not None and text is not None:
            raise InvalidInputError(prefix + "content", "give content or text, not both")
        when = fields.pop("timestamp", None)
        if when is not None and fields.get("event_date") is not None:
            raise InvalidInputError(prefix + "event_date", "give event_date or timestamp, not both")
        if when is not None:
            fields["event_date"] = when
        item_agent = fields.pop("agent_id", agent_id)
        episodes.append(
            build_episode(limits, now, item_agent, content if content is not None else text, field_prefix=prefix, **fields)
        )
    if not episodes:
        raise InvalidInputError("items", "must not be empty")
    return episodes
