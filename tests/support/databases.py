"""Fresh migrated databases for the tests of one pytest process, recycled when that is safe.

Creating a database from the migrated template and dropping it after the test was the largest
part of the quick lane's set-up: the REST, store and recall tests took 74-78 s in one process
that way and 49-56 s recycled. Most tests only write rows, so after a test its database is
emptied (``TRUNCATE … RESTART IDENTITY CASCADE`` of the tables that have pages, the server's
statistics counters reset, the template's row estimates put back) and compared with the template
by ``FINGERPRINT``: its relations and their columns, constraints, triggers, functions, extensions
and schemas, the planner's statistics and row estimates, the database's settings and connection
rules, its sequences, and every row of the tables that are not emptied (``KEPT``: the migrations
applied and the schema's settings). Equal, it is handed to the next test; different in anything
(a test built an agent's own indexes, analysed a table, closed the database to connections), or
unreadable, it is dropped and the next test gets a new one. A recycled database is as the template
left it in everything a test can read, so a test cannot tell which it got.
"""

from __future__ import annotations

import uuid

import psycopg
from psycopg import sql

__all__ = ["Databases"]

KEPT = ("schema_migrations", "fm_settings")

FINGERPRINT = """
SELECT md5(concat_ws(' | ',
  (SELECT string_agg(format('%s.%s:%s:%s:%s:%s', n.nspname, c.relname, c.relkind, c.relpages, c.reltuples,
                                    c.relallvisible), ','
                     ORDER BY n.nspname, c.relname)
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
      AND n.nspname NOT LIKE 'pg\\_temp%'),
  (SELECT string_agg(format('%s.%s:%s:%s', a.attrelid::regclass, a.attname, a.atttypid::regtype, a.attnotnull), ','
                     ORDER BY a.attrelid::regclass::text, a.attname)
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_temp%'
      AND nspname NOT LIKE 'pg\\_toast\\_temp%'),
  (SELECT string_agg(extname || extversion, ',' ORDER BY extname) FROM pg_extension),
  (SELECT count(*) FROM pg_proc WHERE pronamespace <> 'pg_catalog'::regnamespace),
  (SELECT count(*) FROM pg_trigger),
  (SELECT count(*) FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
  (SELECT count(*) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
    WHERE c.relnamespace = 'public'::regnamespace),
  (SELECT string_agg(array_to_string(setconfig, ','), ';') FROM pg_db_role_setting
    WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  (SELECT format('%s:%s:%s', datallowconn, datconnlimit, datistemplate) FROM pg_database
    WHERE datname = current_database()),
  (SELECT string_agg(format('%s.%s=%s', schemaname, sequencename, last_value), ',' ORDER BY sequencename)
     FROM pg_sequences),
  (SELECT string_agg(t::text, ',' ORDER BY t::text) FROM schema_migrations t),
  (SELECT string_agg(t::text, ',' ORDER BY t::text) FROM fm_settings t)
))
"""


# a table never written has no pages, nor have its indexes past their first; TRUNCATE gives each table and
# index a new file, so only the tables with pages are emptied
WRITTEN = ("SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
           " AND relname = ANY(%s) AND pg_relation_size(oid) > 0")
ESTIMATES = ("SELECT relname, relpages, reltuples, relallvisible FROM pg_class"
             " WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'i') ORDER BY relname")
# TRUNCATE leaves an index the estimates of a new one (0 pages, -1 rows) where the migration's CREATE INDEX wrote
# its own (1 page, 0 rows); the planner reads them for partial indexes, so the template's are put back
PUT_BACK = ("UPDATE pg_class c SET relpages = v.relpages, reltuples = v.reltuples, relallvisible = v.relallvisible"
            " FROM unnest(%s::text[], %s::int[], %s::real[], %s::int[])"
            " AS v(relname, relpages, reltuples, relallvisible)"
            " WHERE c.relname = v.relname AND c.relnamespace = 'public'::regnamespace")


def _fingerprint(conn: psycopg.Connection) -> str:
    return conn.execute(FINGERPRINT).fetchone()[0]


class Databases:
    """Databases made from ``template`` on the server at ``admin_url`` (``url_of(name)`` reaches
    one): ``take()`` one, ``give_back(name)`` after the test."""

    def __init__(self, admin_url: str, url_of, template: str) -> None:
        self._url_of, self._template = url_of, template
        with psycopg.connect(url_of(template), autocommit=True) as conn:
            self._expected = _fingerprint(conn)
            self._emptied = [row[0] for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> ALL(%s)"
                " ORDER BY tablename", (list(KEPT),))]
            self._estimates = [list(column) for column in zip(*conn.execute(ESTIMATES).fetchall())]
        self._free: list[str] = []
        self._admin_url = admin_url
        self._connection: psycopg.Connection | None = None

    def take(self) -> str:
        if self._free:
            return self._free.pop()
        name = f"t_{uuid.uuid4().hex[:16]}"
        self._admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name),
                                                                            sql.Identifier(self._template)))
        return name

    def give_back(self, name: str) -> None:
        # what the test left connected (a server thread, a subprocess) goes, as DROP … FORCE would do
        self._admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        if self._emptied_as_template(name):
            self._free.append(name)
        else:
            self._admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    @property
    def _admin(self) -> psycopg.Connection:
        """One connection to the server's own database for the run (made again if a test broke it)."""
        if self._connection is None or self._connection.closed or self._connection.broken:
            self._connection = psycopg.connect(self._admin_url, autocommit=True)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()

    def _emptied_as_template(self, name: str) -> bool:
        try:
            with psycopg.connect(self._url_of(name), autocommit=True, connect_timeout=5) as conn:
                conn.execute("SET lock_timeout = '5s'")
                written = [row[0] for row in conn.execute(WRITTEN, (self._emptied,))]
                if written:
                    tables = sql.SQL(", ").join(sql.Identifier(t) for t in written)
                    conn.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(tables))
                conn.execute(PUT_BACK, self._estimates)
                conn.execute("SELECT pg_stat_reset()")
                return _fingerprint(conn) == self._expected
        except psycopg.Error:
            return False
