"""JSON from the REST server → the facade's records (``PutResult``, ``SearchResult``, ...).

``from_plain(type, value)`` follows the record's type hints: dataclasses field by field, UUIDs,
datetimes (ISO-8601), enums, ``tuple[X, ...]``, mappings, optionals; anything else as it came.
Fields the server does not send keep their defaults (``PutResult.stage_seconds`` is timing, not
sent). Linear in the size of the value.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Mapping
from datetime import datetime
from enum import Enum
from typing import Any, Union, get_args, get_origin, get_type_hints
from uuid import UUID

__all__ = ["WIRE_NAMES", "from_plain"]

# (record, field) → the key its ``to_dict`` writes, where the two differ
WIRE_NAMES = {("PathStep", "from_id"): "from"}


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def from_plain(tp: Any, value: Any) -> Any:
    if value is None or tp is Any:
        return value
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        return from_plain(options[0], value) if len(options) == 1 else value
    if dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        wire = {f.name: WIRE_NAMES.get((tp.__name__, f.name), f.name) for f in dataclasses.fields(tp)}
        return tp(**{name: from_plain(hints[name], value[key]) for name, key in wire.items() if key in value})
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):  # a NamedTuple
        hints = _hints(tp)
        return tp(**{name: from_plain(hints[name], value[name]) for name in tp._fields})
    if tp is UUID:
        return UUID(str(value))
    if tp is datetime:
        return datetime.fromisoformat(value)
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(value)
    if origin is tuple:
        args = get_args(tp)
        return tuple(from_plain(args[0], v) for v in value)
    if origin in (list,):
        return [from_plain(get_args(tp)[0], v) for v in value]
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        args = get_args(tp) or (Any, Any)
        return {k: from_plain(args[1], v) for k, v in value.items()}
    return value
