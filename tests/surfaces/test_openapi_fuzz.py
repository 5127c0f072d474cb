"""OpenAPI fuzzing with schemathesis against the app in-process: for every route,
a bounded number of generated requests (valid and invalid by the schema); no answer may be a
5xx or break the documented schema. Keys are off here; their checks are in test_rest."""

from __future__ import annotations

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from fleet_memory.rest import create_app

pytestmark = pytest.mark.fuzz
EXAMPLES = 12  # per route: the whole file stays well under the 5 minutes make test allows it
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
schemathesis.serializer.alias("application/x-ndjson", "text/plain")  # the import body: JSON Lines text
ROUTES = [(method.upper(), path) for path, item in create_app(memory_factory=lambda: None).openapi()["paths"].items()
          for method in item]


@pytest.fixture
def api(memory):
    memory.put("a1", "Alice works at Google as a software engineer. She joined Google last year.")
    app = create_app(memory, auth=False, max_body_bytes=256_000)

    async def started(scope, receive, send):  # the lifespan runs once, below; each call skips it
        if scope["type"] == "lifespan":
            for reply in ("lifespan.startup.complete", "lifespan.shutdown.complete"):
                await receive()
                await send({"type": reply})
            return
        await app(scope, receive, send)

    with TestClient(app):
        yield schemathesis.openapi.from_asgi("/openapi.json", started)


@pytest.mark.parametrize("method, path", ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_no_route_answers_5xx_or_off_schema(api, method, path) -> None:
    operation = api[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def call(case) -> None:
        case.call_and_validate(checks=CHECKS)

    call()
