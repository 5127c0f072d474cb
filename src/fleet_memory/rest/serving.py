"""How ``fleet-memory serve`` listens, bounds slow clients and stops (its uvicorn settings).

- ``listen``: the port is bound before anything else happens, so a busy port is one clear
  ``PortInUseError`` at once, before the database opens or a model loads.
- Slow clients: a connection must send a whole request head (request line and headers) within
  ``header_timeout_s`` of connecting or of its previous response, else it is closed
  (``HeaderTimeout``: uvicorn's own keep-alive timer is cancelled by any byte, so a client
  trickling a header would otherwise hold its connection forever); a head over 64 KiB is refused
  (h11's incomplete-event limit); past ``max_connections`` open connections (or requests
  running) uvicorn answers 503 at once.
- Shutdown (SIGTERM): the server stops accepting, and requests in flight run to their answer for
  up to ``shutdown_timeout_s``; only one still running after that is cancelled.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import PortInUseError

__all__ = ["HeaderTimeout", "listen", "server_config"]

HEADER_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 1_000
MAX_HEAD_BYTES = 64 * 2**10
SHUTDOWN_TIMEOUT_S = 60


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening; ``PortInUseError`` when another process has it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUseError(f"port {port} is in use on {host}: stop the process listening there or choose "
                                 f"another with --port") from None
        raise
    return sock


class HeaderTimeout(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is not in within
    ``timeout_s`` of connecting or of its previous response."""

    timeout_s = HEADER_TIMEOUT_S
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        self._stop_waiting()
        self._head_timer = self.loop.call_later(self.timeout_s, self._head_overdue)

    def _stop_waiting(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def server_config(app: Any, *, host: str, port: int, verbose: bool = False,
                  header_timeout_s: float = HEADER_TIMEOUT_S, max_connections: int = MAX_CONNECTIONS,
                  shutdown_timeout_s: float = SHUTDOWN_TIMEOUT_S) -> uvicorn.Config:
    """uvicorn's settings for ``app`` with the bounds above."""
    protocol = type("HeaderTimeoutProtocol", (HeaderTimeout,), {"timeout_s": header_timeout_s})
    return uvicorn.Config(app, host=host, port=port, http=protocol, log_level="info" if verbose else "warning",
                          access_log=verbose, limit_concurrency=max_connections,
                          h11_max_incomplete_event_size=MAX_HEAD_BYTES, timeout_graceful_shutdown=shutdown_timeout_s)
