-- Facts that change (docs/concepts.md). A unit that a newer unit supersedes keeps its row (history is
-- never deleted) and gets valid_until = the newer unit's event time; the pair is one row of
-- supersessions (old_id → new_id, one successor per unit; a successor may end several units).
-- Deleting either unit removes the pair (store.supersession reopens the old unit first).
ALTER TABLE memory_units ADD COLUMN valid_until timestamptz;

CREATE TABLE supersessions (
    agent_id   text        NOT NULL,
    old_id     uuid        NOT NULL,
    new_id     uuid        NOT NULL,
    reason     text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (agent_id, old_id),
    CHECK (old_id <> new_id),
    FOREIGN KEY (agent_id, old_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE,
    FOREIGN KEY (agent_id, new_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX supersessions_new_idx ON supersessions (agent_id, new_id);

-- REST writes retried with the same Idempotency-Key return the first response (stored here, per
-- agent, with a hash of the request so a key reused for a different request is refused). A NULL
-- response marks a request still running: a retry waits for it instead of storing twice.
CREATE TABLE idempotency_keys (
    agent_id     text        NOT NULL,
    key          text        NOT NULL,
    request_hash text        NOT NULL,
    response     jsonb,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (agent_id, key)
);
