"""How the REST server reports refused input (422), wherever the refusal came from.

- ``location``: where a facade ``InvalidInputError`` field came from — ``path`` or ``query`` when
  the request carried a parameter of that name there, else ``body``.
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


def location(request: Request, field: str) -> list[str]:
    parts = field.split(".")
    if parts[0] in request.path_params:
        return ["path", *parts]
    if parts[0] in request.query_params:
        return ["query", *parts]
    return ["body", *parts]


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
