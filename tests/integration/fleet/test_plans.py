"""Plans: every statement is planned for the agent it names (custom plans, ``store.db.database``),
except inside ``cached_plans``, where a bulk insert's foreign-key checks keep their cached plans;
custom plans come back after it."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import psycopg
import pytest

from fleet_memory.store.db.database import cached_plans
from fleet_memory.store.linking import links as link_sql

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)


def _mode(conn) -> str:
    return conn.execute("SELECT current_setting('plan_cache_mode')").fetchone()[0]


def test_custom_plans_except_inside_cached_plans(memory) -> None:
    with memory.db.transaction() as conn:
        assert _mode(conn) == "force_custom_plan"
        with cached_plans(conn):
            assert _mode(conn) == "auto"
        assert _mode(conn) == "force_custom_plan"


def test_link_inserts_keep_custom_plans_after_them_and_still_check_keys(memory) -> None:
    results = memory.put_many([{"text": f"Alice Moreau flew to Lisbon in week {i}.", "timestamp": T0.isoformat()}
                               for i in range(3)], agent_id="a")
    a, b = results[0].unit_ids[0], results[1].unit_ids[0]
    with memory.db.transaction() as conn:
        assert link_sql.insert_links(conn, "a", [(a, b, "semantic", 0.9)]) == 1
        assert _mode(conn) == "force_custom_plan"
    with pytest.raises(psycopg.errors.ForeignKeyViolation):  # the checks still run under cached plans
        with memory.db.transaction() as conn:
            link_sql.insert_links(conn, "a", [(a, uuid.uuid4(), "semantic", 0.9)])
