-- Each supersession carries the time its new version took over: the new unit's event time, which
-- is also the old unit's valid_until. Recall's lines of versions (store.supersession.chains) then
-- tell which version is current at a time from the supersession rows alone, one primary-key probe
-- per version instead of two (the unit row of each version as well): on bench/latency.py's
-- 100,000-unit agent, whose lines of jobs run to hundreds of versions, reading them was 10-20 ms of
-- a "Who works at ...?" search. Derived data, kept by the database: a trigger sets it on every
-- insert and update of a row (supersede, and reopen when a version is deleted re-points new_id),
-- whatever the statement gives; event times are never updated.
ALTER TABLE supersessions ADD COLUMN superseded_at timestamptz;
UPDATE supersessions s SET superseded_at = u.event_date
  FROM memory_units u WHERE u.agent_id = s.agent_id AND u.id = s.new_id;
ALTER TABLE supersessions ALTER COLUMN superseded_at SET NOT NULL;

CREATE FUNCTION fm_superseded_at() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    SELECT u.event_date INTO NEW.superseded_at
      FROM memory_units u WHERE u.agent_id = NEW.agent_id AND u.id = NEW.new_id;
    RETURN NEW;
END
$$;
CREATE TRIGGER supersessions_at BEFORE INSERT OR UPDATE ON supersessions
  FOR EACH ROW EXECUTE FUNCTION fm_superseded_at();
