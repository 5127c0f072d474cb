-- Supersession never goes round in a circle or back in time. A pair old → new is not recorded
-- (the row is skipped, as ON CONFLICT skips a unit's second successor) when following new's line
-- of successors reaches old (A → B, then B → A: each version ended the other and the fact left
-- default search), or when new began before old (valid_until would come before event_date).
-- Every writer goes through here: the rule at put time, update (which refuses an earlier date
-- first, with a clear error), the LLM judge, reopen's re-pointing, imports. The check and the
-- write are atomic per agent: a transaction-level advisory lock on the agent's supersessions
-- (taken only when a row is written) keeps two transactions from each recording half of a
-- cycle. Every read is a primary-key probe: the two event times, then one a version along new's
-- line (a new unit, what puts supersede with, has none), on generic plans: a custom plan made
-- while the planner's statistics predate the agent read all its units by another index (the
-- key checks of store.database.cached_plans had the same trouble). A line longer than 100,000 versions
-- (only a cycle left by older code could be) counts as reaching old.
CREATE FUNCTION fm_supersession_guard() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    version uuid := NEW.new_id;
    steps integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('fm-supersessions:' || NEW.agent_id, 0));
    IF (SELECT event_date FROM memory_units WHERE agent_id = NEW.agent_id AND id = NEW.new_id)
       < (SELECT event_date FROM memory_units WHERE agent_id = NEW.agent_id AND id = NEW.old_id) THEN
        RETURN NULL;
    END IF;
    LOOP
        SELECT s.new_id INTO version FROM supersessions s WHERE s.agent_id = NEW.agent_id AND s.old_id = version;
        EXIT WHEN version IS NULL;
        steps := steps + 1;
        IF version = NEW.old_id OR steps > 100000 THEN
            RETURN NULL;
        END IF;
    END LOOP;
    RETURN NEW;
END
$$;
CREATE TRIGGER supersessions_guard BEFORE INSERT OR UPDATE OF old_id, new_id ON supersessions
  FOR EACH ROW EXECUTE FUNCTION fm_supersession_guard();
