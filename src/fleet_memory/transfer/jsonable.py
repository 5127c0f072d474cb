"""Records → JSON-ready values, for every front door's machine output: dataclasses (and records
with ``to_dict``) become dicts, UUIDs and datetimes strings, enums their values, tuples lists."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

__all__ = ["plain"]


def plain(value: Any) -> Any:
    """Records → JSON-ready values."""
    if hasattr(value, "to_dict"):
        return plain(value.to_dict())
    if isinstance(value, (UUID, datetime)):
        return str(value) if isinstance(value, UUID) else value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    return value
