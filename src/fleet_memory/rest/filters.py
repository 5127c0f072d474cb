"""The query parameters of ``GET .../memories`` that filter the list (``listing.listing_filter``):
collected into the facade's keywords; the facade checks each one (422 naming it)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Optional

from fastapi import Query

from ..config import Limits
from ..errors import InvalidInputError
from .schemas import MemoryTypeName

__all__ = ["list_filters"]

_L = Limits()
_ID = Query(max_length=_L.max_agent_id_chars)


def _metadata(text: Optional[str]) -> Optional[dict[str, Any]]:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise InvalidInputError("metadata", f"is not JSON ({exc.msg} at character {exc.pos})",
                                'a JSON object such as {"project": "billing"}') from None
    if not isinstance(value, dict):
        raise InvalidInputError("metadata", f"is a JSON {type(value).__name__}, not an object",
                                'a JSON object such as {"project": "billing"}')
    return value


def list_filters(
    types: Annotated[Optional[list[MemoryTypeName]], Query(description="Any of these types (repeat the parameter).")] = None,
    user_id: Annotated[Optional[str], _ID] = None,
    session_id: Annotated[Optional[str], _ID] = None,
    since: Annotated[Optional[datetime], Query(description="Event date on or after (ISO-8601).")] = None,
    until: Annotated[Optional[datetime], Query(description="Event date on or before (ISO-8601).")] = None,
    tags: Annotated[Optional[list[str]], Query(max_length=_L.max_tags, description="Every one of these tags.")] = None,
    metadata: Annotated[Optional[str], Query(max_length=4096, description='A JSON object; each key equal to its '
                                                                         'value, e.g. {"project": "billing"}.')] = None,
    include_archived: bool = False,
    include_superseded: Annotated[bool, Query(description="False hides units superseded by now.")] = True,
    q: Annotated[Optional[str], Query(max_length=_L.max_query_chars,
                                      description="Full text (web search syntax, English stemming).")] = None,
) -> dict[str, Any]:
    """The list's filters as ``FleetMemory.list_units`` keywords."""
    return {"types": types, "user_id": user_id, "session_id": session_id, "since": since, "until": until,
            "tags": tags, "metadata": _metadata(metadata), "include_archived": include_archived,
            "include_superseded": include_superseded, "q": q}
