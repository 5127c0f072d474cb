"""A local OpenAI-compatible chat-completions server for tests (no remote service).

Answers come from a responder function ``(request_body) -> str`` (the assistant message content),
or from a queue of scripted answers. Every request body is recorded in ``requests``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAITestServer"]


class OpenAITestServer:
    def __init__(self, responder: Callable[[dict[str, Any]], str] | None = None) -> None:
        self.responder = responder
        self.scripted: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self.send_error(404)
                    return
                content = server._answer(body)
                payload = json.dumps({
                    "id": "test", "object": "chat.completion", "model": body.get("model", "test"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _answer(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.requests.append(body)
            if self.scripted:
                return self.scripted.popleft()
        if self.responder is None:
            raise RuntimeError("no scripted answer left and no responder")
        return self.responder(body)

    def script(self, *answers: str) -> None:
        with self._lock:
            self.scripted.extend(answers)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAITestServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
