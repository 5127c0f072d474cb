"""Is the schema distributable by agent? The rule Citus imposes, read from the catalogue.

Citus shards a distributed table by one column and keeps rows with the same value on the same
node; a primary key, unique constraint or exclusion constraint can only be enforced there when it
contains that column, and a foreign key between distributed tables only when both sides are
co-located and the key pairs the two distribution columns. Small shared tables become reference
tables (a full copy on every node); a distributed table may point at one, not the other way.

So, for fleet-memory, distributed by ``agent_id``:

- every table of the schema except ``REFERENCE_TABLES`` is agent data and has an ``agent_id``
  column;
- every primary key, unique constraint, unique index and exclusion constraint of agent data
  contains ``agent_id``;
- every foreign key of agent data either points at a reference table or pairs ``agent_id`` with
  the referenced table's ``agent_id``;
- reference tables have no foreign key to agent data.

``violations`` returns one line per breach (empty: distributable); ``citus_statements`` the SQL
that distributes the schema as it is (reference tables first, then agent tables in foreign-key
order, each co-located with the first). Partitions are checked through their parent, and tables
owned by an extension are not ours to check. Three catalogue queries, however many tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from ...errors import SchemaError

__all__ = ["DISTRIBUTION_COLUMN", "REFERENCE_TABLES", "violations", "citus_statements", "distribute"]

DISTRIBUTION_COLUMN = "agent_id"
REFERENCE_TABLES = ("api_keys", "fm_settings", "schema_migrations")

_TABLES = (
    "SELECT c.oid, c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace"
    " AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
    " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid"
    "  AND d.deptype = 'e') ORDER BY c.relname"
)
# Constraints and unique indexes as (table, name, kind, key columns, referenced table, referenced
# columns); a unique index that backs a constraint is reported once, as the constraint.
_KEYS = (
    "SELECT con.conrelid, con.conname, con.contype::text,"
    " ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, i)"
    "   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.i),"
    " con.confrelid, ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, i)"
    "   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.i)"
    " FROM pg_constraint con WHERE con.contype IN ('p', 'u', 'f', 'x') AND con.conrelid = ANY(%(t)s)"
    " UNION ALL"
    " SELECT i.indrelid, ic.relname, 'i', ARRAY(SELECT coalesce(a.attname::text, '<expression>')"
    "   FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)"
    "   LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o),"
    " 0::oid, ARRAY[]::text[]"
    " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
    " WHERE i.indisunique AND i.indrelid = ANY(%(t)s)"
    "  AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)"
)
_KIND = {"p": "primary key", "u": "unique constraint", "x": "exclusion constraint", "i": "unique index",
         "f": "foreign key"}


def _tables(conn: psycopg.Connection) -> dict[int, str]:
    return {oid: name for oid, name in conn.execute(_TABLES).fetchall()}


def _has_column(conn: psycopg.Connection, oids: Sequence[int]) -> set[int]:
    rows = conn.execute(
        "SELECT attrelid FROM pg_attribute WHERE attrelid = ANY(%s) AND attname = %s AND NOT attisdropped",
        (list(oids), DISTRIBUTION_COLUMN),
    ).fetchall()
    return {r[0] for r in rows}


def _foreign_key_breach(cols: list[str], target: str | None, target_cols: list[str],
                        from_reference: bool) -> str | None:
    if target is None:
        return None  # points outside our schema's tables (an extension's): nothing to co-locate
    if from_reference:
        return None if target in REFERENCE_TABLES else f"points from a reference table to agent data ({target})"
    if target in REFERENCE_TABLES:
        return None
    if (DISTRIBUTION_COLUMN, DISTRIBUTION_COLUMN) not in zip(cols, target_cols):
        return f"does not pair {DISTRIBUTION_COLUMN} with {target}.{DISTRIBUTION_COLUMN}"
    return None


def violations(conn: psycopg.Connection) -> list[str]:
    """One line per table or constraint that keeps the schema from being distributed by
    ``agent_id``, as ``"table: what"``; an empty list when it can be."""
    tables = _tables(conn)
    with_column = _has_column(conn, list(tables))
    found: list[str] = []
    for oid, name in tables.items():
        if name not in REFERENCE_TABLES and oid not in with_column:
            found.append(f"{name}: agent data without an {DISTRIBUTION_COLUMN} column"
                         f" (or add it to REFERENCE_TABLES if it is a small shared table)")
    rows = conn.execute(_KEYS, {"t": list(tables)}).fetchall()
    for table_oid, cname, kind, cols, target_oid, target_cols in rows:
        table = tables[table_oid]
        reference = table in REFERENCE_TABLES
        if kind == "f":
            breach = _foreign_key_breach(cols, tables.get(target_oid), target_cols, reference)
        elif reference:
            breach = None
        else:
            breach = None if DISTRIBUTION_COLUMN in cols else f"does not contain {DISTRIBUTION_COLUMN}"
        if breach:
            found.append(f"{table}: {_KIND[kind]} {cname} ({', '.join(cols)}) {breach}")
    return sorted(found)


def _generic_functions(conn: psycopg.Connection) -> list[str]:
    """Functions of the schema whose statements a cluster must plan for each call: the triggers
    (migrations 011, 012, 016) and any function set to generic plans, unless already set to custom
    plans. A trigger runs on a worker, beside the shard, and its statements go through Citus again:

    - Citus plans a generic statement that is not a single-table lookup not at all ("could not
      create distributed plan"; migration 016's guard runs on generic plans on one server);
    - a single-table lookup that PL/pgSQL caches as a generic plan is planned by Citus again on
      every call, and Citus 13.2 keeps each of those plans in the cached plan's memory (its local
      plan cache misses every time for a plan pruned at run time, citusdata/citus#8824): the
      mention-bits trigger grew a worker's connection by about 150 kB per unit put, kept until the
      connection closes (a worker was OOM-killed at 12.5 GB while the fleet benchmark loaded).

    So on a cluster they run on custom plans, which name the agent: planned per call as Citus did
    anyway, and freed after it."""
    return [r[0] for r in conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace"
        " AND (p.prorettype = 'trigger'::regtype OR 'plan_cache_mode=force_generic_plan' = ANY(p.proconfig))"
        " AND NOT coalesce('plan_cache_mode=force_custom_plan' = ANY(p.proconfig), false) ORDER BY 1").fetchall()]


def _plan(conn: psycopg.Connection) -> list[tuple[str | None, str]]:
    """(the table a statement distributes, or None for a setting; the statement), in order."""
    from ..tables.transfer import agent_tables

    present = set(_tables(conn).values())
    ordered = agent_tables(conn)
    out: list[tuple[str | None, str]] = []
    if conn.execute("SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND tgrelid::regclass::text"
                    " = ANY(%s))", (ordered,)).fetchone()[0]:
        # a trigger on agent data (migration 011's mention bits) reads only the same agent's rows, on
        # the co-located shard: what Citus asks of a trigger before it lets one be distributed
        out.append((None, "SET citus.enable_unsafe_triggers TO on;"))
    out += [(None, f"ALTER FUNCTION {f} SET plan_cache_mode = force_custom_plan;") for f in _generic_functions(conn)]
    out += [(t, f"SELECT create_reference_table('{t}');") for t in REFERENCE_TABLES if t in present]
    for i, table in enumerate(ordered):
        colocate = "" if i == 0 else f", colocate_with => '{ordered[0]}'"
        out.append((table, f"SELECT create_distributed_table('{table}', '{DISTRIBUTION_COLUMN}'{colocate});"))
    return out


def citus_statements(conn: psycopg.Connection) -> list[str]:
    """The SQL that distributes this schema with Citus: the setting that lets a table with triggers
    be distributed (when one has), custom plans for functions on generic ones,
    ``create_reference_table`` for the shared
    tables, then ``create_distributed_table`` by ``agent_id`` for agent data, parents before
    children (Citus wants a foreign key's target distributed first), all co-located."""
    return [statement for _, statement in _plan(conn)]


def distribute(conn: psycopg.Connection) -> list[str]:
    """Distribute this (migrated) schema on a Citus coordinator: run the statements of
    ``citus_statements`` for the tables Citus does not hold yet, so running it again does nothing
    (and a table a later migration added is distributed then). ``conn`` in autocommit mode; returns
    the tables distributed now. Refused on a server without Citus and on a schema that breaks the rule."""
    if not conn.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')").fetchone()[0]:
        raise SchemaError("this database is not a Citus coordinator (no citus extension):"
                          " CREATE EXTENSION citus there and register the workers first")
    found = violations(conn)
    if found:
        raise SchemaError("the schema cannot be distributed by agent_id: " + "; ".join(found))
    held = {row[0] for row in conn.execute(
        "SELECT c.relname::text FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid"
        " WHERE c.relnamespace = current_schema()::regnamespace").fetchall()}
    done = []
    for table, statement in _plan(conn):
        if table is None or table not in held:
            conn.execute(statement)
            if table is not None:
                done.append(table)
    return done
