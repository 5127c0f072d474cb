"""Checks at every entry point. Each failure raises ``InvalidInputError`` naming the field and the
limit, before anything is written.

Dates: a naive ``datetime`` means UTC (documented rule); aware ones are converted to UTC. ISO-8601
strings are accepted too.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

from .clock import as_utc
from .config import Limits
from .errors import InvalidInputError
from .model import MemoryType

__all__ = [
    "check_agent_id",
    "check_user_id",
    "check_path_segment",
    "check_text",
    "check_optional_text",
    "check_date",
    "check_top_k",
    "check_offset",
    "MAX_OFFSET",
    "check_positive_int",
    "check_importance",
    "check_memory_type",
    "check_memory_types",
    "check_tags",
    "check_metadata",
    "check_uuid",
    "check_range",
]


def _has_control(value: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in value)


def _check_encodable(field: str, value: str) -> None:
    if "\x00" in value:
        raise InvalidInputError(field, "contains a NUL byte (\\x00)", "text without NUL bytes")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            field, f"is not valid Unicode (lone surrogate at position {exc.start})", "valid UTF-8 text"
        ) from None


def check_path_segment(value: str, field: str) -> str:
    """Refuse ``.`` and ``..``: ids travel as URL path segments, and HTTP libraries and proxies
    resolve those segments (``/agents/A/users/..`` becomes ``/agents/A``), so such an id would
    address its parent: a user's forget would delete the whole agent."""
    if value in (".", ".."):
        raise InvalidInputError(field, f"{value!r} is a relative path segment", "an id other than '.' or '..'")
    return value


def check_user_id(value: object, limits: Limits, field: str = "user_id") -> str | None:
    """An optional user (or session) id: text up to ``max_agent_id_chars``, never ``.`` or ``..``."""
    text = check_optional_text(value, field, limits.max_agent_id_chars)
    return None if text is None else check_path_segment(text, field)


def check_agent_id(value: object, limits: Limits, field: str = "agent_id") -> str:
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(field, "must not be empty or whitespace")
    if len(value) > limits.max_agent_id_chars:
        raise InvalidInputError(field, f"is {len(value)} characters long", f"{limits.max_agent_id_chars} characters")
    _check_encodable(field, value)
    if _has_control(value):
        raise InvalidInputError(field, "contains control characters", "printable characters only")
    return check_path_segment(value, field)


def check_text(value: object, field: str, max_chars: int) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(field, "must not be empty or whitespace only")
    if len(value) > max_chars:
        raise InvalidInputError(field, f"is {len(value):,} characters long", f"{max_chars:,} characters")
    _check_encodable(field, value)
    return value


def check_optional_text(value: object, field: str, max_chars: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field, f"must be a string or None, got {type(value).__name__}")
    if len(value) > max_chars:
        raise InvalidInputError(field, f"is {len(value):,} characters long", f"{max_chars:,} characters")
    _check_encodable(field, value)
    return value


def check_date(value: object, field: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInputError(field, f"{value!r} is not an ISO-8601 date", "e.g. 2024-05-08T13:56:00Z") from None
    if not isinstance(value, datetime):
        raise InvalidInputError(field, f"must be a datetime, got {type(value).__name__}")
    try:
        return as_utc(value)
    except OverflowError:
        raise InvalidInputError(field, f"{value.isoformat()} falls outside the years 1 to 9999 in UTC",
                                "0001-01-01T00:00Z to 9999-12-31T23:59:59Z") from None


def check_positive_int(value: object, field: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(field, f"must be an integer, got {type(value).__name__}")
    if value <= 0:
        raise InvalidInputError(field, f"must be at least 1, got {value}", f"1 to {maximum:,}")
    if value > maximum:
        raise InvalidInputError(field, f"is {value:,}", f"1 to {maximum:,}")
    return value


MAX_OFFSET = 1_000_000_000
"""The largest page offset any list takes (far past any agent's rows; SQL's bigint is the hard end)."""


def check_offset(value: object, field: str = "offset") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise InvalidInputError(field, f"must be an integer from 0 to {MAX_OFFSET:,}, got {value!r}",
                                f"0 to {MAX_OFFSET:,}")
    return value


def check_top_k(value: object, limits: Limits, field: str = "top_k") -> int:
    return check_positive_int(value, field, limits.max_top_k)


def check_range(value: object, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(field, f"must be a finite number, got {value!r}", f"{low} to {high}")
    if not low <= value <= high:
        raise InvalidInputError(field, f"is {value}", f"{low} to {high}")
    return float(value)


def check_importance(value: object, field: str = "importance") -> float | None:
    return None if value is None else check_range(value, field, 0.0, 1.0)


def check_memory_type(value: object, field: str = "memory_type") -> MemoryType:
    try:
        return MemoryType(value.value if isinstance(value, MemoryType) else value)
    except ValueError:
        allowed = ", ".join(t.value for t in MemoryType)
        raise InvalidInputError(field, f"unknown memory type {value!r}", f"one of {allowed}") from None


def check_memory_types(values: object, field: str = "types") -> tuple[MemoryType, ...] | None:
    if values is None:
        return None
    if isinstance(values, (str, MemoryType)):
        values = [values]
    return tuple(check_memory_type(v, field) for v in values)  # type: ignore[union-attr]


def check_tags(values: object, limits: Limits, field: str = "tags") -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise InvalidInputError(field, "must be a list of strings")
    tags = tuple(values)
    if len(tags) > limits.max_tags:
        raise InvalidInputError(field, f"has {len(tags)} tags", f"{limits.max_tags} tags")
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip():
            raise InvalidInputError(field, f"tag {tag!r} must be a non-empty string")
        if len(tag) > limits.max_tag_chars:
            raise InvalidInputError(field, f"tag of {len(tag)} characters", f"{limits.max_tag_chars} characters")
        _check_encodable(field, tag)
    return tags


def _check_json_text(field: str, value: Any) -> None:
    """Every string (keys too) of a JSON value can be stored: no NUL character (jsonb refuses
    ``\\u0000``), no lone surrogate. Literal backslashes are ordinary text."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _check_encodable(field, item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def check_metadata(value: object, field: str = "metadata") -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(field, f"must be a mapping, got {type(value).__name__}")
    try:
        text = json.dumps(dict(value), allow_nan=False, default=str)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(field, f"is not JSON-serialisable: {exc}") from None
    loaded = json.loads(text)
    _check_json_text(field, loaded)
    return loaded


def check_uuid(value: object, field: str = "id") -> UUID:
    if isinstance(value, UUID):
        return value
    try:
        return UUID(str(value))
    except ValueError:
        raise InvalidInputError(field, f"{value!r} is not a valid id", "a UUID") from None
