"""``fleet-memory serve``'s socket: a busy port is one clear error with its own
exit code before anything loads, and a client that never finishes its request head is cut off
within the header timeout, with real sockets."""

from __future__ import annotations

import socket
import subprocess
import threading
import time

import pytest
import uvicorn

from fleet_memory.rest import create_app
from fleet_memory.rest.serving import listen, server_config
from tests.support.processes import FLEET_MEMORY, clean_env, free_port

HEADER_TIMEOUT_S = 1.0  # the test server's; serve's is rest.serving.HEADER_TIMEOUT_S


def test_serve_on_a_busy_port_says_so_and_exits_7_before_loading_anything(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = subprocess.run([FLEET_MEMORY, "serve", "--no-auth", "--port", str(port)], capture_output=True,
                              text=True, timeout=120, env=clean_env(FLEET_MEMORY_HOME=str(tmp_path / "home")))
    assert done.returncode == 7, done.stderr
    assert f"port {port} is in use" in done.stderr and "model" not in done.stderr.lower(), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "home" / "pg").exists(), "the database was opened before the port was checked"
    assert time.monotonic() - started < 60


def _open_after(sock: socket.socket, deadline: float) -> bool:
    """Whether the server kept ``sock`` open until ``deadline`` (monotonic): recv gives b'' once
    it closed it."""
    try:
        while True:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            if not sock.recv(1024):
                return False
    except socket.timeout:
        return True
    except ConnectionResetError:
        return False


@pytest.fixture
def slow_header_server(memory):
    port = free_port()
    sock = listen("127.0.0.1", port)
    server = uvicorn.Server(server_config(create_app(memory, auth=False), host="127.0.0.1", port=port,
                                          header_timeout_s=HEADER_TIMEOUT_S))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(30)



def test_a_partial_request_head_is_closed_within_the_header_timeout(slow_header_server) -> None:
    port = slow_header_server
    connected = time.monotonic()
    partial, trickling, silent, answered = (socket.create_connection(("127.0.0.1", port)) for _ in range(4))
    partial.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # the head never ends
    answered.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert b"200 OK" in answered.recv(4096)
    answered.sendall(b"GET /heal")  # after a response, a second head that never ends
    trickling.sendall(b"GET /health HTTP/1.1\r\n")
    for _ in range(20):  # a header line every 0.2 s, for longer than the timeout
        try:
            trickling.sendall(b"X-Slow: 1\r\n")
        except OSError:
            break
        time.sleep(0.2)
    bound = connected + HEADER_TIMEOUT_S + 5  # the timeout, and slack for a loaded machine
    for name, sock in (("partial", partial), ("trickling", trickling), ("silent", silent), ("answered", answered)):
        with sock:
            assert not _open_after(sock, bound), f"the {name} connection stayed open past the header timeout"
    with socket.create_connection(("127.0.0.1", port)) as fresh:  # the server still serves
        fresh.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert b"200 OK" in fresh.recv(4096)
