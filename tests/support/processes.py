"""Real processes for the docs and client tests: the installed ``fleet-memory`` command, a free
port, and ``fleet-memory serve`` started in a subprocess and stopped afterwards."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

__all__ = ["FLEET_MEMORY", "clean_env", "free_port", "serving"]

FLEET_MEMORY = shutil.which("fleet-memory", path=str(Path(sys.executable).parent))


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any FLEET_MEMORY_* or LLM provider setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLEET_MEMORY_", "GROQ_", "OPENAI_"))}
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serving(env: Mapping[str, str], *args: str, port: int | None = None, startup_s: float = 240.0) -> Iterator[str]:
    """``fleet-memory serve --port PORT *args``; yields the base URL once ``/health/ready`` says
    the models are loaded (the server listens as soon as the database is open)."""
    assert FLEET_MEMORY, "the fleet-memory console script is not installed in this environment"
    port = port or free_port()
    process = subprocess.Popen([FLEET_MEMORY, "serve", "--port", str(port), *args], env=dict(env),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if process.poll() is not None:
                raise AssertionError(f"serve exited with {process.returncode}: {process.stdout.read()}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=5).status_code == 200:
                    break
                time.sleep(0.2)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError("serve did not start listening in time") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


def server_output(process: subprocess.Popen) -> str:  # pragma: no cover - debugging aid
    return process.stdout.read() if process.stdout else ""
