"""A real PgBouncer in transaction pooling mode in front of the test server (skipped when the
``pgbouncer`` binary is absent: ``make system-deps`` installs it from Debian)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg

__all__ = ["binary", "pgbouncer"]


def binary() -> str | None:
    return shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin:/usr/local/sbin")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def pgbouncer(server_url: str, *, pool_size: int = 2) -> Iterator[str]:
    """Start PgBouncer (``pool_mode = transaction``, ``pool_size`` server connections per database)
    for the server of ``server_url`` (a unix-socket URL as the embedded server gives); yields the
    URL of the same database through PgBouncer. Run as the server's system user when we are root
    (PgBouncer refuses to run as root); its files then live in a folder of their own under the
    system's temporary directory, which that user can reach (pytest's folders are private)."""
    parts = urlsplit(server_url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "127.0.0.1"])[0]
    port = parts.port or int(query.get("port", ["5432"])[0])
    dbname = parts.path.lstrip("/")
    user = parts.username or "postgres"
    listen = _free_port()
    folder = Path(tempfile.mkdtemp(prefix="fm-pgbouncer-"))
    (folder / "userlist.txt").write_text(f'"{user}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{dbname} = host={host} port={port} dbname={dbname} user={user}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {listen}\nunix_socket_dir =\n"
        "auth_type = trust\nauth_file = " + str(folder / "userlist.txt") + "\n"
        f"pool_mode = transaction\ndefault_pool_size = {pool_size}\nmax_client_conn = 200\n"
        "ignore_startup_parameters = extra_float_digits\n"
        f"logfile = {folder / 'pgbouncer.log'}\n"
    )
    command = [binary(), str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:
        owner = pwd.getpwnam("pgserver" if _exists("pgserver") else "nobody")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        for f in folder.iterdir():
            os.chown(f, owner.pw_uid, owner.pw_gid)
        command[1:1] = ["-u", owner.pw_name]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"postgresql://{user}@127.0.0.1:{listen}/{dbname}"
    try:
        _wait(url, process, folder)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _wait(url: str, process: subprocess.Popen, folder: Path) -> None:
    deadline = time.monotonic() + 30  # a bound on waiting, not a timing assertion
    while True:
        try:
            with psycopg.connect(url, connect_timeout=2, autocommit=True, prepare_threshold=None) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            log = (folder / "pgbouncer.log").read_text() if (folder / "pgbouncer.log").exists() else ""
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read().decode() if process.poll() is not None else ""
                raise RuntimeError(f"pgbouncer did not start: {output[-2000:]} {log[-2000:]}") from None
            time.sleep(0.1)
