"""A Python client for the REST server (``fleet-memory serve``) with the facade's method names,
arguments and result types, so code moves from the embedded library to a shared server by
changing one line::

    memory = FleetMemory()                                                # embedded
    memory = Client("http://127.0.0.1:8080", api_key=os.environ["FLEET_MEMORY_KEY"])   # a server

``Client`` is synchronous, ``AsyncClient`` the same methods as coroutines (both on httpx). Every
method is written once, as a request and a reader (``client.calls``); the two classes are made
from that table, so they cannot drift apart. Errors are the facade's exceptions.

``export_agent(agent_id, out)`` writes the server's JSON Lines export to the text stream ``out``;
``import_agent(agent_id, lines)`` sends an export's lines; both return the facade's
``TransferReport``.

Writes (``put``, ``put_many``, ``update``) also take ``idempotency_key=``: the server stores the
write once per key and a retry returns the first response. While the first request with that key
still runs the server answers 409 at once; the client then waits the ``Retry-After`` it was given
and asks again, within its ``timeout``, so a caller retrying after a timeout gets the first
response without the server holding anything for it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import anyio
import httpx

from ..errors import BusyError, FleetMemoryError
from .calls import OPERATIONS, Call, read_response

__all__ = ["AsyncClient", "Client"]

DEFAULT_TIMEOUT_S = 120.0  # a put of a long text runs the whole pipeline before it answers


class _Base:
    def __init__(self, base_url: str = "http://127.0.0.1:8080", *, api_key: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S, transport: Any = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = self._make(base_url=self.base_url, headers=headers, timeout=timeout, transport=transport)

    def _unreachable(self, exc: httpx.TransportError) -> FleetMemoryError:
        return FleetMemoryError(f"fleet-memory server at {self.base_url} unreachable: {exc}")

    @staticmethod
    def _request(call: Call) -> dict[str, Any]:
        headers = {"Idempotency-Key": call.idempotency_key} if call.idempotency_key is not None else {}
        request = {"method": call.method, "url": call.path, "json": call.json, "params": call.params}
        if call.lines is not None:
            headers["Content-Type"] = "application/x-ndjson"
            request.update(json=None, content=call.lines.encode("utf-8"))
        return {**request, "headers": headers or None}

    def _answer(self, call: Call, response: httpx.Response | httpx.TransportError, deadline: float) -> Any:
        """The call's result; or ``_Again(seconds)`` when a write with an idempotency key found its
        first request still running (409) and the client's timeout leaves time to ask again after
        the ``Retry-After`` it was given; otherwise the error. Nothing else is retried."""
        if isinstance(response, httpx.TransportError):
            raise self._unreachable(response) from response
        try:
            return read_response(call, response)
        except BusyError as busy:
            pause = max(0.1, busy.retry_after_s)
            if call.idempotency_key is None or busy.status != 409 or time.monotonic() + pause >= deadline:
                raise
            return _Again(pause)


class _Again(float):
    """Seconds to wait before sending the same call again (``_Base._answer``)."""


class Client(_Base):
    """The REST server with the facade's methods (``put``, ``search``, ``forget_user``, ...)."""

    _make = httpx.Client

    def _send(self, call: Call) -> Any:
        deadline = time.monotonic() + self.timeout
        while isinstance(answer := self._answer(call, self._sent(call), deadline), _Again):
            time.sleep(answer)
        return answer

    def _sent(self, call: Call) -> httpx.Response | httpx.TransportError:
        try:
            return self._http.request(**self._request(call))
        except httpx.TransportError as exc:
            return exc

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class AsyncClient(_Base):
    """``Client`` with every method a coroutine."""

    _make = httpx.AsyncClient

    async def _send(self, call: Call) -> Any:
        deadline = time.monotonic() + self.timeout
        while isinstance(answer := self._answer(call, await self._sent(call), deadline), _Again):
            await anyio.sleep(answer)
        return answer

    async def _sent(self, call: Call) -> httpx.Response | httpx.TransportError:
        try:
            return await self._http.request(**self._request(call))
        except httpx.TransportError as exc:
            return exc

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


def _sync(operation: Callable[..., Call]) -> Callable[..., Any]:
    @functools.wraps(operation)
    def method(self: Client, *args: Any, **kwargs: Any) -> Any:
        return self._send(operation(*args, **kwargs))

    return method


def _async(operation: Callable[..., Call]) -> Callable[..., Any]:
    @functools.wraps(operation)
    async def method(self: AsyncClient, *args: Any, **kwargs: Any) -> Any:
        return await self._send(operation(*args, **kwargs))

    return method


for _operation in OPERATIONS:
    setattr(Client, _operation.__name__, _sync(_operation))
    setattr(AsyncClient, _operation.__name__, _async(_operation))
