"""The REST app served by a real uvicorn on a free port, in a thread of the test process."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import uvicorn

from fleet_memory.rest import create_app

from .processes import free_port


@contextmanager
def real_server(memory: Any, **app_options: Any) -> Iterator[str]:
    """uvicorn serving the app over ``memory`` (``create_app``'s options, e.g. ``auth=False``) on a
    free port, in a thread."""
    server = uvicorn.Server(uvicorn.Config(create_app(memory, **app_options), host="127.0.0.1", port=free_port(),
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped during start-up"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
