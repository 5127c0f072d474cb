"""The schema stays distributable by agent_id (Citus): read from the catalogue, and shown to
catch a table that breaks the rule. Citus itself is not installed here; docs/deploy.md carries
the statements ``citus_statements`` prints, checked below."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from fleet_memory.store.db import distribution, migrations

DEPLOY = Path(__file__).resolve().parents[3] / "docs" / "deploy.md"


def test_the_schema_is_distributable_by_agent(db_url):
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert distribution.violations(conn) == []


def test_a_table_that_breaks_the_rule_is_named(db_url):
    """A deliberately broken schema: each way of breaking the rule is reported, nothing else."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE notes_without_agent (id uuid PRIMARY KEY, body text)")
        conn.execute(
            "CREATE TABLE notes (agent_id text NOT NULL, id uuid NOT NULL, unit_id uuid, slug text,"
            " PRIMARY KEY (id), UNIQUE (slug),"
            " FOREIGN KEY (agent_id, unit_id) REFERENCES memory_units (agent_id, id))"
        )
        conn.execute("CREATE UNIQUE INDEX notes_slug_lower ON notes (lower(slug))")
        conn.execute("CREATE TABLE unit_tags (agent_id text NOT NULL, unit_id uuid NOT NULL, tag text NOT NULL,"
                     " PRIMARY KEY (agent_id, unit_id, tag))")
        conn.execute("CREATE UNIQUE INDEX unit_tags_unit ON unit_tags (unit_id, tag)")
        conn.execute("ALTER TABLE unit_tags ADD CONSTRAINT unit_tags_same_pairs FOREIGN KEY (unit_id, agent_id)"
                     " REFERENCES memory_units (id, agent_id)")  # column order differs, pairs right: fine
        conn.execute("ALTER TABLE unit_tags ADD CONSTRAINT unit_tags_note FOREIGN KEY (unit_id)"
                     " REFERENCES notes_without_agent (id)")
        conn.execute("ALTER TABLE api_keys ADD COLUMN owner_agent text, ADD COLUMN owner_unit uuid,"
                     " ADD CONSTRAINT api_keys_owner FOREIGN KEY (owner_agent, owner_unit)"
                     " REFERENCES memory_units (agent_id, id)")
        found = distribution.violations(conn)
    assert found == [
        "api_keys: foreign key api_keys_owner (owner_agent, owner_unit)"
        " points from a reference table to agent data (memory_units)",
        "notes: primary key notes_pkey (id) does not contain agent_id",
        "notes: unique constraint notes_slug_key (slug) does not contain agent_id",
        "notes: unique index notes_slug_lower (<expression>) does not contain agent_id",
        "notes_without_agent: agent data without an agent_id column"
        " (or add it to REFERENCE_TABLES if it is a small shared table)",
        "notes_without_agent: primary key notes_without_agent_pkey (id) does not contain agent_id",
        "unit_tags: foreign key unit_tags_note (unit_id) does not pair agent_id with notes_without_agent.agent_id",
        "unit_tags: unique index unit_tags_unit (unit_id, tag) does not contain agent_id",
    ]


def test_deploy_guide_distributes_every_table(db_url):
    """The Citus SQL in docs/deploy.md is exactly what the schema needs, in a working order."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        wanted = distribution.citus_statements(conn)
    documented = re.findall(r"^(?:SET citus\..*|ALTER FUNCTION .*|SELECT create_(?:reference|distributed)_table\(.*\));$",
                            DEPLOY.read_text(), re.M)
    assert documented == wanted
    assert any("'memory_units', 'agent_id'" in s for s in wanted)
    assert wanted[0] == "SET citus.enable_unsafe_triggers TO on;"  # unit_entities' bits (migration 011)
    assert {s.split("'")[1] for s in wanted if "reference" in s} == {"api_keys", "fm_settings", "schema_migrations"}


def test_every_migration_keeps_the_schema_distributable(empty_db_url):
    """Applied one at a time: no intermediate schema breaks the rule either."""
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        for step in migrations.available():
            migrations.migrate(conn, 384, [m for m in migrations.available() if m.version <= step.version])
            assert distribution.violations(conn) == [], step.name
