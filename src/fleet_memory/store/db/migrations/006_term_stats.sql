-- Document frequencies of full-text lexemes per agent, so recall's IDF weights cost one index
-- lookup per query term instead of a GIN scan over every unit that contains the term.
-- The row with lexeme '' holds the agent's unit count (the N of the IDF).
-- Kept up to date by every unit insert (store.units.insert_units); deletions leave the counts as
-- an upper bound (IDF needs proportions, not exact counts), except delete_agent which drops them.
CREATE TABLE term_df (
    agent_id text    NOT NULL,
    lexeme   text    NOT NULL,
    df       integer NOT NULL CHECK (df >= 0),
    PRIMARY KEY (agent_id, lexeme)
);

INSERT INTO term_df (agent_id, lexeme, df)
SELECT u.agent_id, lex, count(*)
FROM memory_units u, unnest(tsvector_to_array(u.tsv)) AS lex
GROUP BY u.agent_id, lex;

INSERT INTO term_df (agent_id, lexeme, df)
SELECT agent_id, '', count(*) FROM memory_units GROUP BY agent_id;
