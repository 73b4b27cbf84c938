-- The index version whose full-text indexes the scheduled maintenance last merged into one segment
-- each (FTS5 'merge'), so it only works again once agent text has changed.
ALTER TABLE catalog_version ADD COLUMN merged_index_version INTEGER NOT NULL DEFAULT -1;
