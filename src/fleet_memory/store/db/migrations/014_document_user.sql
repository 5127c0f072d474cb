-- Whose a document is: the put's user_id, NULL for a put without one. Forgetting a user
-- (store.agents.forget_user) removes their documents by it, those that left no unit (only filler)
-- too: before, a document was found only through its units, and a put of filler kept its raw
-- text after its user was forgotten. Documents written before this migration get the user of
-- their units (a put's units share its user); those without units stay NULL.
ALTER TABLE documents ADD COLUMN user_id text;
UPDATE documents d SET user_id = u.user_id
  FROM (SELECT DISTINCT ON (agent_id, document_id) agent_id, document_id, user_id FROM memory_units
        WHERE document_id IS NOT NULL AND user_id IS NOT NULL ORDER BY agent_id, document_id, seq) u
  WHERE u.agent_id = d.agent_id AND u.document_id = d.id;
CREATE INDEX documents_user_idx ON documents (agent_id, user_id) WHERE user_id IS NOT NULL;
