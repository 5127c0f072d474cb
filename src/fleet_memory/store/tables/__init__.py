"""One module per table group (units, documents, entities, supersessions, keys, ...): insert, read,
update; ``deletes`` owns every path that removes units (a unit, a document, a user, an agent)."""
