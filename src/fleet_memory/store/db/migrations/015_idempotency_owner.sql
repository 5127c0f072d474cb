-- A running request's claim on an Idempotency-Key names its owner (host:pid:token of the process)
-- and is renewed while the request runs (heartbeat_at, the database's clock). A retry that finds a
-- claim whose owner is gone (a dead process on this host) or has not renewed it for a while (a
-- crashed server elsewhere) takes it over at once, instead of waiting for the key to expire.
ALTER TABLE idempotency_keys ADD COLUMN owner text, ADD COLUMN heartbeat_at timestamptz;
