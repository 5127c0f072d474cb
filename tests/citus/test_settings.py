"""A transaction's planner settings reach the workers (``store.db.database.DISTRIBUTED_SETTINGS``),
and the triggers that fire there plan each call (``store.db.distribution``).

``set_config`` sets a value on the coordinator only; a shard's statement is planned and run on its
worker. On a coordinator every transaction of ``Database`` also sends its settings as ``SET LOCAL``
with ``citus.propagate_set_commands = 'local'``, and ``index_order`` switches with ``SET LOCAL``, so
the worker that holds the agent reads with them. The lane's workers keep pgvector's defaults
(``tests/citus/cluster.sh`` configures nothing of the kind), so what the worker shows inside the
transaction came from it."""

from __future__ import annotations

import psycopg

from fleet_memory.store.db.database import CANDIDATE_EF_SEARCH, RECALL_EF_SEARCH, index_order

ON_THE_SHARD = (  # pgvector's settings exist in a session once it loaded pgvector or set one of them
    "SELECT current_setting('hnsw.iterative_scan', true), current_setting('hnsw.ef_search', true),"
    " current_setting('enable_sort'), current_setting('max_parallel_workers_per_gather'), inet_server_port()"
    " FROM term_df WHERE agent_id = %s AND lexeme = ''")


def test_the_transactions_settings_reach_the_worker_of_the_agent(memory, db_url):
    memory.put("a1", "Alice moved to Berlin in March.")
    with psycopg.connect(db_url) as conn:
        coordinator = conn.execute("SELECT inet_server_port()").fetchone()[0]
        *defaults, worker = conn.execute(ON_THE_SHARD, ("a1",)).fetchone()
    assert worker != coordinator  # the statement ran on the agent's worker
    # nothing configured on the workers: pgvector's defaults, or not even those before it is loaded
    assert tuple(defaults[:2]) in {("off", "40"), (None, None)}
    with memory.db.transaction() as conn:
        inside = conn.execute(ON_THE_SHARD, ("a1",)).fetchone()
        with index_order(conn):
            ordered = conn.execute(ON_THE_SHARD, ("a1",)).fetchone()
        after = conn.execute(ON_THE_SHARD, ("a1",)).fetchone()
    assert inside == ("relaxed_order", str(RECALL_EF_SEARCH), "on", "0", worker)
    assert ordered == ("relaxed_order", str(CANDIDATE_EF_SEARCH), "off", "0", worker)
    assert after == inside
    with memory.db.spare(wait_s=5) as conn:  # a read beside: a transaction of its own, the same settings
        assert conn.execute(ON_THE_SHARD, ("a1",)).fetchone() == inside


def test_the_triggers_plan_each_call_on_every_node(db_url):
    """``db distribute`` sets the schema's trigger functions to custom plans (``distribution.
    _generic_functions``: Citus 13.2's local plan cache grows a worker's connection with every call
    of a cached generic plan), and Citus carries the setting to the workers, where they fire."""
    generic = ("SELECT coalesce(string_agg(proname, ',' ORDER BY proname), '') FROM pg_proc"
               " WHERE pronamespace = '{schema}'::regnamespace AND prorettype = 'trigger'::regtype"
               " AND NOT coalesce('plan_cache_mode=force_custom_plan' = ANY(proconfig), false)")
    with psycopg.connect(db_url, autocommit=True) as conn:
        schema, triggers = conn.execute(
            "SELECT current_schema(), count(*) FROM pg_proc WHERE pronamespace = current_schema()::regnamespace"
            " AND prorettype = 'trigger'::regtype").fetchone()
        assert triggers >= 3  # migrations 011, 012, 016
        assert conn.execute(generic.format(schema=schema)).fetchone()[0] == ""
        workers = conn.execute("SELECT success, result FROM run_command_on_workers(%s)",
                               (generic.format(schema=schema),)).fetchall()
    assert len(workers) >= 2 and workers == [(True, "")] * len(workers)
