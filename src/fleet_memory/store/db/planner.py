"""The planner: statistics that keep up with an agent's growth, and generic plans for recall's
walk (``use_generic_plans``).

Every recall statement filters on ``agent_id``. When PostgreSQL's statistics were gathered before
an agent had its units (a new agent on a table whose statistics name every other agent), the
planner estimates that agent at one row, and for one row the cheapest plan is to scan all of the
agent's units or links inside a nested loop: measured here, a walk step on a fresh 741-unit agent
took 1.9–4 s instead of 3 ms until autovacuum came by (it waits for 10% of the table to change,
which a new agent on a big table may never reach).

So after a write, for each agent whose unit count crossed a power of two from ``MIN_UNITS`` on
(128, 256, 512, …: a handful of checks over an agent's life), the planner's row estimate for the
agent is compared with the count; under half of it, the memory tables are analysed (about 0.1 s
per 10,000 rows sampled, skipped for a table another session is analysing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import psycopg

__all__ = ["MIN_UNITS", "TABLES", "crossed_checkpoint", "crossed_checkpoints", "unit_counts", "estimated_units",
           "refresh_if_stale", "use_generic_plans"]

MIN_UNITS = 128
TABLES = ("memory_units", "unit_entities", "links", "entities")


def crossed_checkpoint(before: int, after: int) -> bool:
    """True when ``after`` reached a power of two ≥ ``MIN_UNITS`` that ``before`` had not."""
    return after >= MIN_UNITS and after.bit_length() > max(before, MIN_UNITS - 1).bit_length()


def unit_counts(conn: psycopg.Connection, agent_ids: list[str]) -> dict[str, int]:
    """Units per agent as ``term_df`` keeps them (one primary-key lookup each)."""
    rows = conn.execute(
        "SELECT agent_id, df FROM term_df WHERE agent_id = ANY(%s) AND lexeme = ''", (agent_ids,)
    ).fetchall()
    return {agent: int(df) for agent, df in rows}


def estimated_units(conn: psycopg.Connection, agent_id: str) -> float:
    plan = conn.execute("EXPLAIN (FORMAT JSON) SELECT 1 FROM memory_units WHERE agent_id = %s", (agent_id,)).fetchone()
    return float(plan[0][0]["Plan"]["Plan Rows"])


def crossed_checkpoints(counts: Mapping[str, int], added: Mapping[str, int]) -> list[str]:
    """The agents whose write (``added`` units, ``counts`` after it) crossed a checkpoint; most
    writes cross none, and then nothing else is asked of the database."""
    return [agent for agent, after in sorted(counts.items()) if crossed_checkpoint(after - added.get(agent, 0), after)]


def refresh_if_stale(conn: psycopg.Connection, agents: Sequence[str], counts: Mapping[str, int]) -> list[str]:
    """Analyse the memory tables when one of ``agents`` is estimated at under half its count in
    ``counts``. Returns the agents found stale."""
    stale = [agent for agent in agents if estimated_units(conn, agent) < counts[agent] / 2]
    if stale:
        conn.execute("ANALYZE (SKIP_LOCKED) " + ", ".join(TABLES))
    return stale


def use_generic_plans(conn: psycopg.Connection) -> None:
    """Generic plans for the rest of the transaction. Recall sends it once its entry points are read:
    the statements after them (the walk's links, features by primary key, versions, reinforcement)
    read no agent's own index, so a plan cached for them serves every agent; planning was about a
    third of each hop (0.6–1.2 ms). Only worth it with prepared statements: an unnamed statement
    would get a generic plan built afresh each time."""
    conn.execute("SELECT set_config('plan_cache_mode', 'force_generic_plan', true)")
