"""Database plumbing: where the server is (embedded or configured), the connection pool, migrations,
rows mapped by column name, planner statistics and an agent's own indexes, reads on a spare
connection, and the checks an operator runs (status, distribution)."""
