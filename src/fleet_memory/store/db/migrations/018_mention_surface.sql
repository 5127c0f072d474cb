-- The surface a mention was found under ("ALICE" for the entity "Alice"), so that deleting units
-- can take back the aliases only they brought: forget_user left a forgotten user's spellings on
-- an entity another user also named. NULL for mentions written before this migration and for
-- those not read from text (a consolidated unit's, a merge of such); an alias also carried by a
-- mention of unknown surface is kept.
ALTER TABLE unit_entities ADD COLUMN surface text;
