"""The CLI when the database dies under it."""

from __future__ import annotations

import json
import threading
import time

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo


def test_postgres_dying_mid_ingest_is_one_line_and_exit_4(cli, db_url, tmp_path) -> None:
    turns = [{"role": "user", "content": f"Alice visited city number {i} with Bob on her trip.",
              "timestamp": f"2024-03-01T{i // 60:02d}:{i % 60:02d}:00Z"} for i in range(600)]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(turns))
    name = conninfo_to_dict(db_url)["dbname"]
    admin = make_conninfo(db_url, dbname="postgres")
    stop = threading.Event()

    def kill_when_writing() -> None:
        with psycopg.connect(db_url, autocommit=True) as conn:
            while not stop.is_set() and not conn.execute("SELECT count(*) FROM documents").fetchone()[0]:
                time.sleep(0.05)
        with psycopg.connect(admin, autocommit=True) as conn:  # as if the server went away for good
            conn.execute(f"ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false")
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s"
                         " AND pid <> pg_backend_pid()", (name,))

    killer = threading.Thread(target=kill_when_writing)
    killer.start()
    try:
        result = cli("ingest", str(path), "-a", "a1", "--batch-size", "16")
    finally:
        stop.set()
        killer.join()
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "database" in lines[0]
