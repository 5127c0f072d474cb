"""ASGI pieces of the REST app: the request-body limit (413), the early answer to a retry whose
first request is still running (409), and the API-key gate of ``/mcp``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Optional

from ..errors import AuthError
from ..idempotency import IN_PROGRESS_RETRY_S, in_progress, running_here

__all__ = ["HOLD_S", "BodyLimit", "InProgress", "McpAuth"]


async def _send_json(send: Callable, status: int, body: dict[str, Any], headers: Optional[list] = None) -> None:
    payload = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": payload})


class BodyLimit:
    """413 for a body over ``max_bytes``: by Content-Length up front, else by counting as it streams."""

    def __init__(self, app: Callable, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            return await _send_json(send, 413, {"detail": f"request body over the limit of {self.max_bytes} bytes"})
        seen, started, refused = 0, False, False

        async def counted() -> dict:
            nonlocal seen, refused
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes and not refused:
                refused = True
                if not started:
                    await _send_json(send, 413, {"detail": f"request body over the limit of {self.max_bytes} bytes"})
                return {"type": "http.disconnect"}  # the app stops reading; what it answers is dropped
            return message

        async def tracked(message: dict) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted, tracked)


HOLD_S = 1.0
"""How long an early 409 is held before it is sent (an async wait: no worker, no connection)."""


class InProgress:
    """409 with ``Retry-After`` for a write whose ``Idempotency-Key`` this process is running for
    the path's agent, answered before the body is read (``idempotency.running_here``) — once the
    request's key may act for the agent, so that nobody else learns which keys are running. Any
    other request goes on as it came.

    The answer is held ``HOLD_S`` first: answered at once, a client that ignores ``Retry-After``
    re-sent a 2 MB put about 600 times a second, 1.2 GB/s through the event loop that serves
    everyone else; held, each of its connections re-sends at most once a second."""

    _WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})

    def __init__(self, app: Callable, state: Callable[[], Any]) -> None:
        self.app, self.state = app, state

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope.get("method") in self._WRITES and (key := await self._running(scope)):
            import anyio

            await anyio.sleep(HOLD_S)
            return await _send_json(send, 409, {"detail": in_progress(key)},
                                    [(b"retry-after", str(max(1, round(IN_PROGRESS_RETRY_S))).encode())])
        await self.app(scope, receive, send)

    async def _running(self, scope: dict) -> str | None:
        """The request's key when this process runs its first request and the caller may know."""
        import anyio

        raw = scope.get("headers") or []  # ASGI header names are lower-case bytes
        key = next((v.decode("latin-1") for k, v in raw if k == b"idempotency-key"), None)
        parts = scope.get("path", "").split("/")
        if not key or len(parts) < 4 or parts[1:3] != ["v1", "agents"] or not running_here(parts[3], key):
            return None
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw}
        state = self.state()
        if not state.auth:
            return key
        try:
            await anyio.to_thread.run_sync(lambda: state.memory.authenticate(McpAuth.key(headers), parts[3]))
        except AuthError:
            return None  # the route answers it as it answers any unauthorised request
        return key


class McpAuth:
    """The MCP streamable-HTTP endpoint behind the API keys: 401 before MCP sees the request;
    per-agent scope (403) is checked by each tool call (see ``mcp_server``). GET, which would
    open a server-sent stream that never ends in stateless mode, is answered 405."""

    def __init__(self, inner: Callable, state: Callable[[], Any], auth: bool) -> None:
        self.inner, self.state, self.auth = inner, state, auth

    @staticmethod
    def key(headers: Optional[Mapping[str, str]]) -> Optional[str]:
        if not headers:
            return None
        lower = {k.lower(): v for k, v in headers.items()}
        bearer = lower.get("authorization", "")
        return bearer[7:].strip() if bearer.lower().startswith("bearer ") else lower.get("x-api-key")

    @staticmethod
    def configure(server: Any) -> Any:
        """``server`` set up for stateless JSON over streamable HTTP (``rest.mcp_http`` mounts it)."""
        from mcp.server.transport_security import TransportSecuritySettings

        # Host checks are the REST server's business (it binds where it is told); keys guard access.
        server.streamable_http_app(stateless_http=True, json_response=True,
                                   transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        return server

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        import anyio

        if scope.get("method") == "GET":  # stateless JSON mode has no server-sent stream to open
            return await _send_json(send, 405, {"detail": "GET /mcp is not supported: POST JSON-RPC requests"},
                                    [(b"allow", b"POST, DELETE")])
        if self.auth:
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers") or []}
            try:
                await anyio.to_thread.run_sync(lambda: self.state().memory.authenticate(self.key(headers)))
            except AuthError as exc:
                return await _send_json(send, exc.status, {"detail": str(exc)}, [(b"www-authenticate", b"Bearer")])
        await self.inner(scope, receive, send)
