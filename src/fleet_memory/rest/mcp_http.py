"""``/mcp`` of the REST server, built after start-up rather than before the server listens.

Importing the MCP SDK and building the server (pydantic models for every protocol version) costs
about a second of CPU — a second more before a restarted server answers its first search. So the
endpoint is built by a task of the app's lifespan once the models are loaded (``startup_done()``),
or at once when a ``/mcp`` request comes first; a request waits for it, then goes through
(``McpAuth`` still answers GET and missing keys before anything is built). The same task enters
the SDK's session manager and leaves it at shutdown, so both happen in one task as anyio needs.
If the build fails, ``/mcp`` answers 503 with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc

from .limits import _send_json

__all__ = ["LazyMcp"]


class LazyMcp:
    """An ASGI app that is the MCP streamable-HTTP app once ``serve`` has built it."""

    def __init__(self, build: Callable[[], Any], startup_done: Callable[[], bool]) -> None:
        self._build = build  # → the MCP server (with its streamable-HTTP app configured)
        self._startup_done = startup_done
        self._app: Any = None
        self._error: str | None = None

    def start(self, tasks: anyio.abc.TaskGroup) -> None:
        """Start building in ``tasks`` (the lifespan's; cancelled at shutdown)."""
        self._wanted, self._built = anyio.Event(), anyio.Event()
        tasks.start_soon(self._serve)

    async def _serve(self) -> None:
        while not (self._startup_done() or self._wanted.is_set()):
            await anyio.sleep(0.1)
        try:
            from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

            server = await anyio.to_thread.run_sync(self._build)
            app = StreamableHTTPASGIApp(server.session_manager)
        except Exception as exc:  # answered by every /mcp request
            self._error = f"{type(exc).__name__}: {exc}"
            self._built.set()
            return
        async with server.session_manager.run():
            self._app = app
            self._built.set()
            await anyio.sleep_forever()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        self._wanted.set()
        await self._built.wait()
        if self._app is None:
            return await _send_json(send, 503, {"detail": f"the MCP endpoint could not be built: {self._error}"})
        await self._app(scope, receive, send)
