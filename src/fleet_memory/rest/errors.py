"""How the REST server reports refused input (422), wherever the refusal came from.

- ``location``: where a facade ``InvalidInputError`` field came from — ``path``, ``query`` or
  ``header`` when the request carried a parameter of that name there (the facade's
  ``name_or_id`` is the entity routes' ``entity``), else ``body``.
- ``validation_error``: FastAPI's own 422, with every value made JSON-safe first (a body such as
  ``{"importance": NaN}`` parses in Python, and echoing the NaN back used to fail with a 500).
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

__all__ = ["location", "validation_error"]


_PARAMETERS = {"name_or_id": "entity"}  # the facade's argument → the route's parameter


def location(request: Request, field: str) -> list[str]:
    first, *rest = field.split(".")
    name = _PARAMETERS.get(first, first)
    if name in request.path_params:
        return ["path", name, *rest]
    if name in request.query_params:
        return ["query", name, *rest]
    if name in request.headers:
        return ["header", name, *rest]
    return ["body", first, *rest]


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_json_safe(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"detail": _json_safe(jsonable_encoder(exc.errors()))}, status_code=422)
